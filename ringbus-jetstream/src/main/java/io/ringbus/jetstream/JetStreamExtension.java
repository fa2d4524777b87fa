package io.ringbus.jetstream;

import io.ringbus.core.Storage;
import io.ringbus.jetstream.internal.ApiDispatcher;
import io.ringbus.jetstream.internal.JetStreamMonitor;
import io.ringbus.jetstream.internal.StreamsApi;
import io.ringbus.jetstream.internal.consumer.Consumers;
import io.ringbus.jetstream.internal.consumer.ConsumersApi;
import io.ringbus.server.ServerRequests;
import io.ringbus.server.spi.ConfigKey;
import io.ringbus.server.spi.ExtensionContext;
import io.ringbus.server.spi.ExtensionSettings;
import io.ringbus.server.spi.ServerExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * JetStream's API ({@code $JS.API.>}: account info and streams) served on the server's embedded
 * store, and its monitoring: {@code /jsz}, {@code /varz}'s {@code jetstream}, dashboard cards and meters. Found by the standalone server with {@link java.util.ServiceLoader}; an embedder adds it
 * with {@code ServerConfig.builder().extension(new JetStreamExtension())} and a broker that has a
 * {@link Storage#local local store}. See docs/jetstream.md.
 */
public final class JetStreamExtension implements ServerExtension {
    /** The extension's name: its settings are {@code jetstream.*}. */
    public static final String NAME = "jetstream";

    private static final Logger LOG = LoggerFactory.getLogger(JetStreamExtension.class);

    private ApiDispatcher dispatcher;
    private Consumers consumers;
    private JetStreamMonitor monitor;

    /** An extension that reads its settings when the server starts it. */
    public JetStreamExtension() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ConfigKey> configKeys() {
        return JetStreamSettings.KEYS;
    }

    @Override
    public boolean needsStorage(ExtensionSettings settings) {
        return JetStreamSettings.from(settings).enabled();
    }

    @Override
    public void start(ExtensionContext context) {
        JetStreamSettings settings = JetStreamSettings.from(context.settings());
        if (!settings.enabled()) {
            LOG.info("jetstream: off (jetstream.enabled=false or --no-jetstream)");
            return;
        }
        Storage storage = context.storage();
        if (storage == null) {
            LOG.warn("jetstream: off: the broker has no store (give its builder a Storage.local)");
            return;
        }
        StreamsApi streams = StreamsApi.open(context.broker(), storage, settings);
        io.ringbus.core.Documents documents = null;
        try {
            documents = storage.documents("jetstream");
        } catch (UnsupportedOperationException none) {
            // below: consumers need somewhere to keep their state
        }
        if (documents != null) {
            consumers = new Consumers(context.broker(), documents);
            consumers.retentionFrom(streams::retentionOf);
            streams.consumers(new ConsumersApi(consumers));
            context.handle(ServerRequests.JETSTREAM_ACK_PREFIX, consumers);
            context.handle(ServerRequests.JETSTREAM_FLOW_CONTROL_PREFIX, consumers);
        } else {
            LOG.warn("jetstream: consumers not served: {} keeps no documents", storage.describe());
        }
        dispatcher = new ApiDispatcher(streams, settings);
        context.handle(ServerRequests.JETSTREAM_API_PREFIX, dispatcher);
        monitor = JetStreamMonitor.register(context, streams, consumers, dispatcher);
        LOG.info("jetstream: on, streams in {}; {} streams (max_streams {}), API queue {} requests "
                        + "({} per connection), max_file_store {} (storage.max_bytes; {} used), max_memory_store {}",
                storage.describe(), streams.count(), settings.maxStreams(), settings.maxPendingRequests(),
                settings.maxPendingPerConnection(), storage.maxBytes() < 0 ? "unlimited" : storage.maxBytes() + " bytes",
                storage.usedBytes() < 0 ? "?" : storage.usedBytes() + " bytes",
                storage.maxMemoryBytes() < 0 ? "unlimited" : storage.maxMemoryBytes() + " bytes");
        if (consumers != null) {
            LOG.info("jetstream: {} consumers (max {}, max_ack_pending at most {}, max_waiting at most {})",
                    consumers.count(), Consumers.MAX_CONSUMERS, Consumers.MAX_ACK_PENDING, Consumers.MAX_WAITING);
        }
    }

    @Override
    public void close() {
        if (monitor != null) {
            monitor.close();
            monitor = null;
        }
        if (dispatcher != null) {
            dispatcher.close();
            dispatcher = null;
        }
        if (consumers != null) {
            consumers.close();
            consumers = null;
        }
    }
}
