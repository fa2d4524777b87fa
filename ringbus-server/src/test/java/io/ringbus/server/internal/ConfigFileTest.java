package io.ringbus.server.internal;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Scope;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.spi.FederationOptions;
import io.ringbus.core.spi.FederationProvider;
import io.ringbus.server.ServerConfig;
import io.ringbus.server.TlsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigFileTest {
    @TempDir
    Path dir;

    @Test
    void trailingCommentsEndTheValueAndAnEscapedHashDoesNot() throws Exception {
        Path file = dir.resolve("commented.properties");
        Files.writeString(file, """
                # a comment line
                   ! another
                max_payload=2m               # heap for messages; default 1m
                server_name=edge#1          # a # without a blank before it is part of the value
                user.alice=pa\\ \\#ss:PRIVATE   # a blank then an escaped hash: still the password
                ping_interval=30s	# a tab before it too
                host = 127.0.0.1 #
                """);
        ServerConfig.Builder builder = ServerConfig.builder();
        ConfigFile.apply(file, builder, Broker.builder(), new StorageSettings());
        ServerConfig config = builder.build();
        assertThat(config.maxPayload()).isEqualTo(2 << 20);
        assertThat(config.serverName()).isEqualTo("edge#1");
        assertThat(config.pingInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.host()).isEqualTo("127.0.0.1");
        assertThat(ConfigFile.withoutTrailingComments("user.alice=pa \\#ss:PRIVATE   # note\n"))
                .isEqualTo("user.alice=pa \\#ss:PRIVATE\n");
    }

    @Test
    void anUnknownKeyNamesTheKeysThatShareItsFirstPart() throws Exception {
        Path file = dir.resolve("typo.properties");
        Files.writeString(file, "tls.cert=/etc/x.pem\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .hasMessageContaining("tls.cert=/etc/x.pem").hasMessageContaining("unknown key")
                .hasMessageContaining("tls.cert_file, tls.key_file");
    }

    @Test
    void anUnknownKeyATypoAwayFromOneNamesIt() throws Exception {
        Path file = dir.resolve("typo.properties");
        Files.writeString(file, "prot = 4333\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .hasMessage(file + ": prot=4333: unknown key (see docs/configuration.md); did you mean port?");
        Files.writeString(file, "colour = blue\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .hasMessage(file + ": colour=blue: unknown key (see docs/configuration.md)");
    }

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
                max_filters=50
                max_filter_bytes=64k
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
                storage.dir=/var/lib/ringbus
                storage.fsync=interval
                storage.fsync_interval=50ms
                storage.max_bytes=10g
                storage.max_memory=64m
                storage.durable.orders.>=
                storage.durable.audit.*=PRIVATE name=AUDIT max_age=168h max_bytes=10g, max_messages=1_000_000 \
                  max_messages_per_subject=10 duplicate_window=30s duplicate_window_bytes=2m
                """);
        ServerConfig.Builder server = ServerConfig.builder();
        BrokerBuilder broker = Broker.builder();
        StorageSettings storage = new StorageSettings();
        Map<String, Scope> subjects = ConfigFile.apply(file, server, broker, storage);
        ServerConfig config = server.build();

        assertThat(config.host()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isEqualTo(4333);
        assertThat(config.serverName()).isEqualTo("edge-1");
        assertThat(config.ioThreads()).isEqualTo(3);
        assertThat(config.maxPayload()).isEqualTo(2 << 20);
        assertThat(config.maxPending()).isEqualTo(128L << 20);
        assertThat(config.maxConnections()).isEqualTo(500);
        assertThat(config.maxSubscriptions()).isEqualTo(1000);
        assertThat(config.maxFilters()).isEqualTo(50);
        assertThat(config.maxFilterBytes()).isEqualTo(64L << 10);
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
        assertThat(storage.dir()).isEqualTo(Path.of("/var/lib/ringbus"));
        assertThat(storage.policy()).isEqualTo(FsyncPolicy.INTERVAL);
        assertThat(storage.interval()).isEqualTo(Duration.ofMillis(50));
        assertThat(storage.maxBytes()).isEqualTo(10L << 30);
        assertThat(storage.maxMemory()).isEqualTo(64L << 20);
        assertThat(storage.durables()).containsExactlyInAnyOrder(
                new StorageSettings.Durable(StreamConfig.of("orders.>"), null),
                new StorageSettings.Durable(StreamConfig.of("audit.*").withName("AUDIT")
                        .withMaxAge(Duration.ofHours(168)).withMaxBytes(10L << 30).withMaxMessages(1_000_000)
                        .withMaxMessagesPerSubject(10).withDuplicateWindow(Duration.ofSeconds(30))
                        .withDuplicateWindowBytes(2L << 20), Scope.PRIVATE));
        try (Broker built = broker.build()) {
            assertThat(built.stats().ringSize()).isEqualTo(1024);
            assertThat(built.scopeOf("unregistered")).isEqualTo(Scope.PRIVATE);
        }
    }

    @Test
    void readsTheCostlyCheckKeysAndNamesABadValue() throws Exception {
        Path file = dir.resolve("checks.properties");
        Files.writeString(file, "authenticator_timeout=3s\nauth_check_threads=3\nauth_checks_per_source=5\n");
        ServerConfig.Builder server = ServerConfig.builder();
        ConfigFile.apply(file, server, Broker.builder(), new StorageSettings());
        ServerConfig config = server.build();
        assertThat(config.authenticatorTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(config.authCheckThreads()).isEqualTo(3);
        assertThat(config.authChecksPerSource()).isEqualTo(5);
        assertThat(ServerConfig.defaults().authenticatorTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(ServerConfig.defaults().authChecksPerSource()).isEqualTo(ServerConfig.DEFAULT_AUTH_CHECKS_PER_SOURCE);

        for (String bad : new String[] {"authenticator_timeout=0s", "authenticator_timeout=soon",
            "auth_check_threads=0", "auth_checks_per_source=-1"}) {
            Files.writeString(file, bad + "\n");
            assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(),
                    new StorageSettings())).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad);
        }
    }

    @Test
    void readsTheTlsKeys() throws Exception {
        Path file = dir.resolve("tls.properties");
        Files.writeString(file, "tls.cert_file=/etc/rb/server.pem\ntls.key_file=/etc/rb/server.key\n"
                + "tls.ca_file=/etc/rb/ca.pem\ntls.verify=true\ntls.handshake_first=true\ntls.timeout=500ms\n"
                + "tls.provider=jdk\n");
        ServerConfig.Builder server = ServerConfig.builder();
        ConfigFile.apply(file, server, Broker.builder(), new StorageSettings());
        ServerConfig config = server.build();
        assertThat(config.tlsEnabled()).isTrue();
        assertThat(config.tlsCertFile()).isEqualTo(Path.of("/etc/rb/server.pem"));
        assertThat(config.tlsKeyFile()).isEqualTo(Path.of("/etc/rb/server.key"));
        assertThat(config.tlsCaFile()).isEqualTo(Path.of("/etc/rb/ca.pem"));
        assertThat(config.tlsVerify()).isTrue();
        assertThat(config.tlsHandshakeFirst()).isTrue();
        assertThat(config.tlsTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.tlsProvider()).isEqualTo(TlsProvider.JDK);
        assertThat(ServerConfig.builder().build().tlsProvider()).isEqualTo(TlsProvider.AUTO);
        Files.writeString(file, "tls.verify=yes\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .hasMessageContaining("tls.verify=yes").hasMessageContaining("not a boolean");
        Files.writeString(file, "tls.provider=boringssl\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .hasMessageContaining("tls.provider=boringssl").hasMessageContaining("auto, openssl or jdk");
    }

    @Test
    void httpPortMinusOneTurnsMonitoringOff() throws Exception {
        Path file = dir.resolve("off.properties");
        Files.writeString(file, "http_port=-1\n");
        ServerConfig.Builder server = ServerConfig.builder();
        ConfigFile.apply(file, server, Broker.builder(), new StorageSettings());
        assertThat(server.build().monitorEnabled()).isFalse();
        Files.writeString(file, "http_port=-2\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .hasMessageContaining("http_port=-2").hasMessageContaining("monitorPort");
    }

    @Test
    void anUnknownKeyOrBadValueNamesTheFileKeyAndValue() throws Exception {
        Path unknown = dir.resolve("unknown.properties");
        Files.writeString(unknown, "max_payloads=1m\n");
        assertThatThrownBy(() -> ConfigFile.apply(unknown, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown.properties").hasMessageContaining("max_payloads=1m");

        Path bad = dir.resolve("bad.properties");
        Files.writeString(bad, "ping_interval=soon\n");
        assertThatThrownBy(() -> ConfigFile.apply(bad, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ping_interval=soon").hasMessageContaining("not a duration");

        Path ring = dir.resolve("ring.properties");
        Files.writeString(ring, "broker.ring_size=1000\n");
        assertThatThrownBy(() -> ConfigFile.apply(ring, ServerConfig.builder(), Broker.builder(), new StorageSettings()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ringSize=1000");
    }

    @Test
    void aDurableSubjectWithABadOptionOrPolicyNamesIt() throws Exception {
        Path option = dir.resolve("option.properties");
        Files.writeString(option, "storage.durable.orders.>=PUBLIC max_size=1m\n");
        assertThatThrownBy(() -> ConfigFile.apply(option, ServerConfig.builder(), Broker.builder(),
                new StorageSettings()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("storage.durable.orders.>").hasMessageContaining("max_size=1m");

        Path policy = dir.resolve("policy.properties");
        Files.writeString(policy, "storage.fsync=sometimes\n");
        assertThatThrownBy(() -> ConfigFile.apply(policy, ServerConfig.builder(), Broker.builder(),
                new StorageSettings()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("storage.fsync=sometimes").hasMessageContaining("always, interval, os");
    }

    @Test
    void theCommandLineFormTakesAPatternAndAnOptionalSpec() {
        StorageSettings storage = new StorageSettings()
                .durable("orders.>")
                .durable("audit.>=PRIVATE max_messages=5");
        assertThat(storage.durables()).containsExactly(
                new StorageSettings.Durable(StreamConfig.of("orders.>"), null),
                new StorageSettings.Durable(StreamConfig.of("audit.>").withMaxMessages(5), Scope.PRIVATE));
    }

    @Test
    void readsTheFederationKeysAndNamesABadCaFile() throws Exception {
        Path file = dir.resolve("federated.properties");
        Files.writeString(file, """
                federation.servers=nats://a:4222,nats://b:4222
                federation.user=ringbus:secret
                federation.reconnect_wait=250ms
                federation.max_reconnects=10
                """);
        AtomicReference<FederationOptions> made = new AtomicReference<>();
        FederationProvider provider = options -> {
            made.set(options);
            return null; // what the link is does not matter here: what it is made from does
        };
        FederationSettings federation = new FederationSettings(provider);
        ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(), new StorageSettings(), federation);
        assertThat(federation.servers()).isEqualTo("nats://a:4222,nats://b:4222");
        federation.build();
        assertThat(made.get()).isEqualTo(new FederationOptions("nats://a:4222,nats://b:4222", "ringbus", "secret",
                null, null, Duration.ofMillis(250), 10));

        Path notPem = dir.resolve("not.pem");
        Files.writeString(notPem, "not a certificate");
        Files.writeString(file, "federation.servers=nats://a:4222\nfederation.ca_file=" + notPem + "\n");
        FederationSettings tls = new FederationSettings(provider);
        ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(), new StorageSettings(), tls);
        assertThatThrownBy(tls::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(notPem.toString());
    }

    @Test
    void federationKeysWithoutTheFederationModuleNameTheKeyAndTheModule() throws Exception {
        // ringbus-federation is not on this module's test path: the server does not depend on it
        Path file = dir.resolve("federated.properties");
        Files.writeString(file, "federation.servers=nats://a:4222\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(),
                new StorageSettings(), new FederationSettings()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("federation.servers needs the federation link")
                .hasMessageContaining("ringbus-federation (module io.ringbus.federation)");
        Files.writeString(file, "storage.jetstream=nats://a:4222\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), Broker.builder(),
                new StorageSettings(), new FederationSettings()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("storage.jetstream needs the JetStream store")
                .hasMessageContaining("ringbus-federation (module io.ringbus.federation)");
    }
}
