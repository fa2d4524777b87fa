package io.ringbus.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Scope;
import io.ringbus.server.monitor.MonitorSources;

import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * A real broker and a real {@link RingbusServer} on a free loopback port, for one test.
 *
 * <p>Subjects: {@code pub.>} and {@code _INBOX.>} are PUBLIC (so that clients without
 * credentials can publish, subscribe and make requests), {@code fed.>} is FEDERATED, anything
 * else is PRIVATE (the broker's default).
 */
final class ServerUnderTest implements AutoCloseable {
    final Broker broker;
    final RingbusServer server;

    private ServerUnderTest(Broker broker, RingbusServer server) {
        this.broker = broker;
        this.server = server;
    }

    /** A server with the test defaults and no credentials: every client is PUBLIC. */
    static ServerUnderTest start() {
        return start(b -> b, c -> c);
    }

    /** A server with the test defaults changed by {@code config}. */
    static ServerUnderTest start(UnaryOperator<ServerConfig.Builder> config) {
        return start(b -> b, config);
    }

    static ServerUnderTest start(UnaryOperator<BrokerBuilder> brokerConfig,
                                 UnaryOperator<ServerConfig.Builder> config) {
        return start(brokerConfig, config, MonitorSources.none(), null);
    }

    static ServerUnderTest start(UnaryOperator<BrokerBuilder> brokerConfig,
                                 UnaryOperator<ServerConfig.Builder> config, MonitorSources sources) {
        return start(brokerConfig, config, sources, null);
    }

    /** A server whose broker and server both register their meters in {@code registry}. */
    static ServerUnderTest startMetered(MeterRegistry registry, UnaryOperator<ServerConfig.Builder> config) {
        return start(b -> b.meterRegistry(registry), config, MonitorSources.none(), registry);
    }

    private static ServerUnderTest start(UnaryOperator<BrokerBuilder> brokerConfig,
                                         UnaryOperator<ServerConfig.Builder> config, MonitorSources sources,
                                         MeterRegistry registry) {
        Broker broker = brokerConfig.apply(Broker.builder().name("t").ringSize(4096).defaultScope(Scope.PRIVATE))
                .build();
        broker.registerSubject("pub.>", Scope.PUBLIC);
        broker.registerSubject("_INBOX.>", Scope.PUBLIC);
        broker.registerSubject("fed.>", Scope.FEDERATED);
        ServerConfig.Builder builder = ServerConfig.builder()
                .host("127.0.0.1")
                .port(0) // never 4222: a real nats-server may run there
                .monitorPort(ServerConfig.MONITOR_OFF) // monitoring tests turn it on, on a free port
                .maxPayload(1024)
                .maxConnections(2000)
                .ioThreads(2);
        try {
            ServerConfig settings = config.apply(builder).build();
            return new ServerUnderTest(broker, registry == null ? RingbusServer.start(broker, settings, sources)
                    : RingbusServer.start(broker, settings, registry));
        } catch (RuntimeException e) {
            broker.close(Duration.ofSeconds(1));
            throw e;
        }
    }

    int port() {
        return server.port();
    }

    int monitorPort() {
        return server.monitorPort();
    }

    String url() {
        return "nats://127.0.0.1:" + server.port();
    }

    ServerStats stats() {
        return server.stats();
    }

    @Override
    public void close() {
        server.close();
        broker.close(Duration.ofSeconds(2));
    }
}
