package io.ringbus.test;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Scope;
import io.ringbus.server.RingbusServer;
import io.ringbus.server.ServerConfig;

import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * What {@link RingbusServerExtension} starts: from a {@link RingbusServerTest} annotation or a
 * {@link RingbusServerExtension.Builder}. Checked when built.
 */
record ServerSettings(String token, String user, String password, Scope clientScope, int maxPayload,
                      boolean perMethod, boolean monitor, UnaryOperator<BrokerBuilder> brokerConfig,
                      UnaryOperator<ServerConfig.Builder> serverConfig) {

    ServerSettings {
        if (clientScope == null) {
            throw new IllegalArgumentException("clientScope must not be null");
        }
        if (user.isEmpty() != password.isEmpty()) {
            throw new IllegalArgumentException("user and password go together: user='" + user + "', password "
                    + (password.isEmpty() ? "empty" : "set"));
        }
        if (maxPayload < 1 || maxPayload > ServerConfig.MAX_PAYLOAD_LIMIT) {
            throw new IllegalArgumentException("maxPayload must be in 1.." + ServerConfig.MAX_PAYLOAD_LIMIT
                    + ": maxPayload=" + maxPayload);
        }
    }

    static ServerSettings of(RingbusServerTest a) {
        return new ServerSettings(a.token(), a.user(), a.password(), a.clientScope(), a.maxPayload(),
                a.perMethod(), a.monitor(), UnaryOperator.identity(), UnaryOperator.identity());
    }

    /** Starts a broker whose subjects are PUBLIC by default, and a server on a free loopback port. */
    RingbusServerHandle start() {
        Broker broker = brokerConfig.apply(Broker.builder().name("ringbus-test").ringSize(4096)
                .defaultScope(Scope.PUBLIC)).build();
        try {
            ServerConfig.Builder config = ServerConfig.builder()
                    .host("127.0.0.1")
                    .port(0) // a free port: never 4222, where a real nats-server may run
                    .serverName("ringbus-test")
                    .maxPayload(maxPayload)
                    .ioThreads(2)
                    .noAuthScope(clientScope)
                    .monitorPort(monitor ? 0 : ServerConfig.MONITOR_OFF); // never 8222
            if (!token.isEmpty()) {
                config.token(token, clientScope);
            }
            if (!user.isEmpty()) {
                config.user(user, password, clientScope);
            }
            return new RingbusServerHandle(broker, RingbusServer.start(broker, serverConfig.apply(config).build()));
        } catch (RuntimeException e) {
            broker.close(Duration.ofSeconds(1));
            throw e;
        }
    }
}
