package io.ringbus.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.server.internal.NettyServer;
import io.ringbus.server.internal.ServerContext;
import io.ringbus.server.internal.ServerMeters;

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
 */
public final class RingbusServer implements AutoCloseable {
    private final ServerContext context;
    private final NettyServer netty;
    private final ServerMeters meters;
    private volatile boolean closed;

    private RingbusServer(Broker broker, ServerConfig config, MeterRegistry registry) {
        this.context = new ServerContext(broker, config);
        this.netty = new NettyServer(context);
        this.meters = registry == null ? null : new ServerMeters(registry, config.serverName(), context.counters());
    }

    /**
     * Starts serving {@code broker} over the network.
     *
     * @param broker the broker to expose
     * @param config address, limits and credentials
     * @return the running server
     * @throws java.io.UncheckedIOException naming the address when it cannot be bound
     */
    public static RingbusServer start(Broker broker, ServerConfig config) {
        if (broker == null || config == null) {
            throw new IllegalArgumentException("broker and config must not be null: broker=" + broker
                    + ", config=" + config);
        }
        return new RingbusServer(broker, config, null);
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
        return new RingbusServer(broker, config, registry);
    }

    /** @return the port the server listens on (useful with port 0) */
    public int port() {
        return netty.port();
    }

    /** @return a snapshot of the server's counters */
    public ServerStats stats() {
        return context.counters().snapshot();
    }

    /**
     * Closes the listening socket; connected clients keep working. To drain on shutdown: stop
     * accepting, close the broker (it delivers what it accepted), then {@link #close()}.
     */
    public void stopAccepting() {
        netty.stopAccepting();
    }

    /** Stops accepting, flushes and closes every connection, stops the I/O threads. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            netty.close(2_000);
            if (meters != null) {
                meters.close();
            }
        }
    }
}
