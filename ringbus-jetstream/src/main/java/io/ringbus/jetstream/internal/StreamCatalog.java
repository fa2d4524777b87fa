package io.ringbus.jetstream.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Broker;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JetStream configuration of every stream: kept durably beside the stream in the store
 * ({@link Storage#writeMetadata}: {@code {"created": ..., "config": {...}}}), reloaded and
 * registered with the broker at start. A stream the server registered itself ({@code --durable})
 * has no document until the API updates it: its configuration is derived from the store's
 * ({@link JsStreamConfig#ofStore}). One namespace: the broker's streams.
 *
 * <p>Threading: the API's one thread changes it; reads from any thread.
 */
final class StreamCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(StreamCatalog.class);

    private final Broker broker;
    private final Storage storage;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final Instant started = Instant.now();

    /** A stream's JetStream configuration and when it was created. */
    record Entry(JsStreamConfig config, Instant created) {
    }

    private StreamCatalog(Broker broker, Storage storage) {
        this.broker = broker;
        this.storage = storage;
    }

    /**
     * Reads every stored configuration and registers the streams the broker does not have yet.
     * A stream that cannot be registered (its subjects now overlap a {@code --durable} pattern) is
     * logged and left stored, not served.
     */
    static StreamCatalog open(Broker broker, Storage storage) {
        StreamCatalog catalog = new StreamCatalog(broker, storage);
        for (String name : storage.streamsWithMetadata()) {
            Entry entry;
            try {
                entry = catalog.decode(storage.metadata(name));
            } catch (IOException | RuntimeException e) {
                LOG.warn("jetstream: stream {}: its stored configuration cannot be read ({}); not served", name,
                        e.toString());
                continue;
            }
            catalog.entries.put(name, entry);
            if (catalog.stream(name).isEmpty()) {
                try {
                    broker.registerStream(entry.config().toStore());
                } catch (IllegalArgumentException | StorageException e) {
                    catalog.entries.remove(name);
                    LOG.warn("jetstream: stream {} not served: {}", name, e.getMessage());
                }
            }
        }
        return catalog;
    }

    private Entry decode(byte[] document) throws IOException {
        JsonNode json = ApiJson.MAPPER.readTree(document);
        return new Entry(JsStreamConfig.parse(json.get("config")).normalized(), Instant.parse(json.get("created")
                .asText()));
    }

    /** Writes a stream's configuration durably (before it is registered or changed). */
    void save(JsStreamConfig config, Instant created) {
        ObjectNode document = ApiJson.MAPPER.createObjectNode();
        document.put("created", created.toString());
        document.set("config", config.toJson());
        try {
            storage.writeMetadata(config.name(), ApiJson.MAPPER.writeValueAsBytes(document));
        } catch (IOException e) {
            throw new StorageException("cannot encode the configuration of stream " + config.name() + ": " + e, e);
        }
        entries.put(config.name(), new Entry(config, created));
    }

    /** Forgets a deleted stream. */
    void forget(String name) {
        entries.remove(name);
    }

    /** @return the broker's stream of that name */
    Optional<StoredStream> stream(String name) {
        for (StoredStream stream : broker.streams()) {
            if (stream.config().name().equals(name)) {
                return Optional.of(stream);
            }
        }
        return Optional.empty();
    }

    /** @return the broker's streams */
    List<StoredStream> streams() {
        return broker.streams();
    }

    /** @return the JetStream configuration and creation time of a registered stream */
    Entry entry(StoredStream stream) {
        Entry entry = entries.get(stream.config().name());
        if (entry != null && entry.config().sameSubjects(JsStreamConfig.ofStore(stream.config()))) {
            return entry;
        }
        // Registered by the server (--durable), or its pattern changed there: the store's configuration rules.
        return new Entry(JsStreamConfig.ofStore(stream.config()), entry != null ? entry.created() : started);
    }
}
