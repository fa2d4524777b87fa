package io.ringbus.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.server.internal.NettyServer;
import io.ringbus.server.internal.ServerContext;
import io.ringbus.server.internal.ServerExtensionContext;
import io.ringbus.server.internal.ServerMeters;
import io.ringbus.server.internal.monitor.MonitorServer;
import io.ringbus.server.monitor.MonitorSources;
import io.ringbus.server.spi.ServerExtension;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * A running ringbus-server: the NATS client protocol on TCP in front of a {@link Broker}, so
 * that any NATS client (jnats, nats.go, nats.js, the C client, ...) and in-process subscribers
 * share subjects. Network publishes arrive in the broker as {@code byte[]} payloads; in-process
 * payloads go out as bytes ({@code byte[]} as is, text as UTF-8, other objects as their
 * {@code toString()}).
 *
 * <pre>{@code
 * Broker broker = Broker.builder().build();
 * try (RingbusServer server = RingbusServer.start(broker, ServerConfig.builder().port(4222).build())) {
 *     ...
 * }
 * }</pre>
 *
 * <p>The server does not own the broker: closing it leaves the broker running.
 *
 * <p>Unless {@link ServerConfig#monitorEnabled() turned off}, the server also serves HTTP
 * monitoring (NATS-compatible {@code /varz}, {@code /connz}, {@code /subsz}, {@code /healthz},
 * Prometheus {@code /metrics}, a live dashboard at {@code /}) on its own thread; see
 * docs/monitoring.md.
 */
public final class RingbusServer implements AutoCloseable {
    private final ServerContext context;
    private final NettyServer netty;
    private final MonitorServer monitor;
    private final ServerMeters meters;
    private final PrometheusMeterRegistry ownRegistry;
    private final List<ServerExtension> extensions = new ArrayList<>();
    private volatile boolean closed;

    private RingbusServer(Broker broker, ServerConfig config, MonitorSources given, MeterRegistry registry) {
        this.context = new ServerContext(broker, config);
        MonitorSources sources = given;
        PrometheusMeterRegistry own = null;
        if (config.monitorEnabled() && sources.meterRegistry().isEmpty()) {
            // /metrics needs a registry: one of JVM basics, which the server's and extensions' meters join.
            own = MonitorSources.jvmMeterRegistry();
            MonitorSources.Builder copy = MonitorSources.builder().meterRegistry(own);
            sources.blockedHandlers().ifPresent(copy::blockedHandlers);
            sources.outboxBacklog().ifPresent(copy::outboxBacklog);
            sources.storage().ifPresent(store -> copy.storage(store, given.streams()));
            sources = copy.build();
        }
        this.ownRegistry = own;
        MeterRegistry target = registry != null ? registry : sources.meterRegistry().orElse(null);
        try {
            startExtensions(config, target);
            this.netty = new NettyServer(context);
        } catch (RuntimeException e) {
            closeExtensions();
            context.close();
            if (own != null) {
                own.close();
            }
            throw e;
        }
        this.meters = target == null ? null : new ServerMeters(target, config.serverName(), context.counters());
        MonitorServer started = null;
        if (config.monitorEnabled()) {
            try {
                started = MonitorServer.start(context, sources);
            } catch (RuntimeException e) {
                closeMeters();
                netty.close(0);
                closeExtensions();
                context.close();
                throw e;
            }
        }
        this.monitor = started;
    }

    /**
     * Starts serving {@code broker} over the network.
     *
     * @param broker the broker to expose
     * @param config address, limits and credentials
     * @return the running server
     * @throws java.io.UncheckedIOException naming the address when it (or the monitoring port)
     *                                      cannot be bound
     * @throws IllegalArgumentException     naming the TLS files when they cannot be used
     */
    public static RingbusServer start(Broker broker, ServerConfig config) {
        return start(broker, config, MonitorSources.none());
    }

    /**
     * Starts serving {@code broker} over the network, with what the monitoring port should show
     * besides the server's own figures (ignored when monitoring is off).
     *
     * @param broker  the broker to expose
     * @param config  address, limits, credentials and monitoring port
     * @param sources meter registry (which also gets the server's meters, {@code ringbus.server.*}),
     *                watchdog warnings, outbox backlog
     * @return the running server
     * @throws java.io.UncheckedIOException naming the address when it (or the monitoring port)
     *                                      cannot be bound
     */
    public static RingbusServer start(Broker broker, ServerConfig config, MonitorSources sources) {
        if (broker == null || config == null || sources == null) {
            throw new IllegalArgumentException("broker, config and sources must not be null: broker=" + broker
                    + ", config=" + config + ", sources=" + sources);
        }
        return new RingbusServer(broker, config, sources, null);
    }

    /**
     * Starts serving {@code broker} over the network and publishes the server's meters
     * ({@code ringbus.server.*}, tagged {@code server} with {@link ServerConfig#serverName()}; see
     * {@code docs/metrics.md}) to {@code registry}. The meters read the server's counters when
     * scraped and are removed when the server closes. The broker's own meters come from
     * {@link io.ringbus.core.BrokerBuilder#meterRegistry}: give both the same registry.
     *
     * @param broker   the broker to expose
     * @param config   address, limits and credentials
     * @param registry where to register the server's meters
     * @return the running server
     * @throws java.io.UncheckedIOException naming the address when it cannot be bound
     */
    public static RingbusServer start(Broker broker, ServerConfig config, MeterRegistry registry) {
        if (broker == null || config == null || registry == null) {
            throw new IllegalArgumentException("broker, config and registry must not be null: broker=" + broker
                    + ", config=" + config + ", registry=" + registry);
        }
        return new RingbusServer(broker, config, MonitorSources.none(), registry);
    }

    /** @return the port the server listens on (useful with port 0) */
    public int port() {
        return netty.port();
    }

    /**
     * Reloads the TLS certificate, key and CA from their files (as on SIGHUP; the server also
     * notices a change of the files within seconds): connections accepted from now on use them,
     * established ones keep theirs.
     *
     * @return whether the new files were loaded; {@code false} when they cannot be used (the
     *         previous certificate stays, the reason is logged) or TLS is not configured
     */
    public boolean reloadTls() {
        return context.tls() != null && context.tls().reload();
    }

    /** @return the monitoring port actually bound, or {@link ServerConfig#MONITOR_OFF} when off */
    public int monitorPort() {
        return monitor == null ? ServerConfig.MONITOR_OFF : monitor.port();
    }

    /** @return a snapshot of the server's counters */
    public ServerStats stats() {
        return context.counters().snapshot();
    }

    /**
     * @return bytes of output waiting for clients now (the capacity of the buffers encoded and
     *         not yet handed to the socket), all connections together; bounded by
     *         {@link ServerConfig#outboundBudget()} plus what publishers already under way add
     */
    public long outboundBuffered() {
        return context.outboundBuffered();
    }

    /**
     * Closes the listening socket; connected clients keep working. To drain on shutdown: stop
     * accepting, close the broker (it delivers what it accepted), then {@link #close()}.
     */
    public void stopAccepting() {
        netty.stopAccepting();
    }

    /**
     * Stops accepting, flushes and closes every connection, stops the I/O threads and the
     * monitoring port. Idempotent.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (monitor != null) {
                monitor.close();
            }
            netty.close(2_000);
            closeExtensions();
            context.close();
            closeMeters();
        }
    }

    /** Starts the configured extensions, in order; when one fails, those started are closed and it throws. */
    private void startExtensions(ServerConfig config, MeterRegistry registry) {
        for (ServerExtension extension : config.extensions()) {
            try {
                extension.start(new ServerExtensionContext(context, config.extensionSettings(extension.name()),
                        registry));
            } catch (RuntimeException e) {
                closeExtensions(); // those started; the caller closes the rest
                throw e;
            }
            extensions.add(extension);
        }
    }

    private void closeExtensions() {
        context.extensionsClosed();
        for (ServerExtension extension : extensions.reversed()) {
            try {
                extension.close();
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(RingbusServer.class).warn("closing extension {} failed: {}", extension.name(),
                        e.toString());
            }
        }
        extensions.clear();
    }

    private void closeMeters() {
        if (meters != null) {
            meters.close();
        }
        if (ownRegistry != null) {
            ownRegistry.close();
        }
    }
}
