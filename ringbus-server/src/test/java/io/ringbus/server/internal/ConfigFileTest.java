package io.ringbus.server.internal;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Scope;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigFileTest {
    @TempDir
    Path dir;

    @Test
    void readsEveryDocumentedKey() throws Exception {
        Path file = dir.resolve("ringbus.properties");
        Files.writeString(file, """
                host=127.0.0.1
                port=4333
                server_name=edge-1
                io_threads=3
                max_payload=2m
                max_pending=128m
                max_connections=500
                max_subscriptions=1000
                ping_interval=30s
                max_pings_out=3
                auth_timeout=500ms
                write_deadline=5s
                no_auth_scope=FEDERATED
                http_host=0.0.0.0
                http_port=9222
                broker.ring_size=1024
                broker.event_loops=2
                broker.worker_pool_size=4
                broker.wait_strategy=yielding
                broker.default_scope=PRIVATE
                broker.shutdown_timeout=3s
                subject.orders.>=PUBLIC
                subject.billing.*=FEDERATED
                token.s3cr3t=FEDERATED
                user.alice=pass:with:colons:PRIVATE
                """);
        ServerConfig.Builder server = ServerConfig.builder();
        BrokerBuilder broker = Broker.builder();
        Map<String, Scope> subjects = ConfigFile.apply(file, server, broker);
        ServerConfig config = server.build();

        assertThat(config.host()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isEqualTo(4333);
        assertThat(config.serverName()).isEqualTo("edge-1");
        assertThat(config.ioThreads()).isEqualTo(3);
        assertThat(config.maxPayload()).isEqualTo(2 << 20);
        assertThat(config.maxPending()).isEqualTo(128L << 20);
        assertThat(config.maxConnections()).isEqualTo(500);
        assertThat(config.maxSubscriptions()).isEqualTo(1000);
        assertThat(config.pingInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxPingsOut()).isEqualTo(3);
        assertThat(config.authTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.writeDeadline()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.noAuthScope()).isEqualTo(Scope.FEDERATED);
        assertThat(config.monitorHost()).isEqualTo("0.0.0.0");
        assertThat(config.monitorPort()).isEqualTo(9222);
        assertThat(config.tokens()).containsEntry("s3cr3t", Scope.FEDERATED);
        assertThat(config.users().get("alice")).isEqualTo(new ServerConfig.UserCredential("pass:with:colons", Scope.PRIVATE));
        assertThat(subjects).containsEntry("orders.>", Scope.PUBLIC).containsEntry("billing.*", Scope.FEDERATED);
        try (Broker built = broker.build()) {
            assertThat(built.stats().ringSize()).isEqualTo(1024);
            assertThat(built.scopeOf("unregistered")).isEqualTo(Scope.PRIVATE);
        }
    }

    @Test
    void httpPortMinusOneTurnsMonitoringOff() throws Exception {
        Path file = dir.resolve("off.properties");
        Files.writeString(file, "http_port=-1\n");
        ServerConfig.Builder server = ServerConfig.builder();
        ConfigFile.apply(file, server, Broker.builder());
        assertThat(server.build().monitorEnabled()).isFalse();
        Files.writeString(file, "http_port=-2\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder()))
                .hasMessageContaining("http_port=-2").hasMessageContaining("monitorPort");
    }

    @Test
    void anUnknownKeyOrBadValueNamesTheFileKeyAndValue() throws Exception {
        Path unknown = dir.resolve("unknown.properties");
        Files.writeString(unknown, "max_payloads=1m\n");
        assertThatThrownBy(() -> ConfigFile.apply(unknown, ServerConfig.builder(), Broker.builder()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown.properties").hasMessageContaining("max_payloads=1m");

        Path bad = dir.resolve("bad.properties");
        Files.writeString(bad, "ping_interval=soon\n");
        assertThatThrownBy(() -> ConfigFile.apply(bad, ServerConfig.builder(), Broker.builder()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ping_interval=soon").hasMessageContaining("not a duration");

        Path ring = dir.resolve("ring.properties");
        Files.writeString(ring, "broker.ring_size=1000\n");
        assertThatThrownBy(() -> ConfigFile.apply(ring, ServerConfig.builder(), Broker.builder()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ringSize=1000");
    }
}
