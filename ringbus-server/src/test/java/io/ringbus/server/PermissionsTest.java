package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Scope;
import io.ringbus.server.internal.ConfigFile;
import io.ringbus.server.internal.StorageSettings;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.ringbus.server.MonitorClient.field;
import static io.ringbus.server.MonitorClient.number;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Per-user permissions (nats-server's {@code permissions}): publish and subscribe allow and deny
 * lists, wildcards, queue groups, {@code allow_responses}, within the user's scope; the exact
 * {@code -ERR} texts, the connection kept, the counters.
 */
@Timeout(60)
class PermissionsTest {
    private static final String PUB_DENIED = "-ERR 'Permissions Violation for Publish to \"%s\"'";
    private static final String SUB_DENIED = "-ERR 'Permissions Violation for Subscription to \"%s\"'";

    private ServerUnderTest server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ServerUnderTest start(Permissions permissions) {
        return start(permissions, Scope.PRIVATE);
    }

    private static ServerUnderTest start(Permissions permissions, Scope scope) {
        return ServerUnderTest.start(c -> c.monitorPort(0)
                .token("root", Scope.ROOT)
                .user("alice", "pw", scope)
                .permissions("alice", permissions));
    }

    private RawClient alice() {
        RawClient client = RawClient.connect(server.port());
        client.handshake("{\"verbose\":false,\"pedantic\":false,\"headers\":true,\"user\":\"alice\",\"pass\":\"pw\"}");
        return client;
    }

    private RawClient root() {
        RawClient client = RawClient.connect(server.port());
        client.handshake("{\"verbose\":false,\"pedantic\":false,\"auth_token\":\"root\"}");
        return client;
    }

    @Test
    void publishAllowListAndDenyListWithDenyWinning() {
        server = start(Permissions.builder().publishAllow("orders.>", "_INBOX.>").publishDeny("orders.secret.*").build());
        try (RawClient alice = alice()) {
            alice.send("SUB orders.> 1\r\nPUB orders.new 2\r\nhi\r\n");
            assertThat(alice.readDelivery().subject()).isEqualTo("orders.new");
            alice.send("PUB orders.secret.plans 2\r\nhi\r\nPUB payments.x 2\r\nhi\r\nPING\r\n");
            alice.expectLine(PUB_DENIED.formatted("orders.secret.plans"));
            alice.expectLine(PUB_DENIED.formatted("payments.x"));
            alice.expectLine("PONG"); // nothing was delivered: the denied messages were dropped
            alice.send("PUB orders.secret 2\r\nhi\r\n"); // one token short of the deny entry: allowed
            assertThat(alice.readDelivery().subject()).isEqualTo("orders.secret");
            alice.assertRoundTrip("_INBOX.abc");
            alice.assertOpen();
        }
        assertThat(server.stats().permissionViolations()).isEqualTo(2);
    }

    @Test
    void deniedPublishesAreRefusedEveryTimeWhileCached() {
        server = start(Permissions.builder().publishDeny("audit.>").build());
        try (RawClient alice = alice()) {
            for (int i = 0; i < 3; i++) {
                alice.send("PUB audit.log 1\r\nx\r\n");
                alice.expectLine(PUB_DENIED.formatted("audit.log"));
            }
            alice.send("HPUB audit.log 12 13\r\nNATS/1.0\r\n\r\nx\r\n");
            alice.expectLine(PUB_DENIED.formatted("audit.log"));
            alice.assertRoundTrip("anything.else");
        }
        assertThat(server.stats().permissionViolations()).isEqualTo(4);
    }

    @Test
    void subscribeAllowAndDenyListsRefuseTheSubscriptionAndKeepTheConnection() {
        server = start(Permissions.builder().subscribeAllow("orders.>", "_INBOX.>").subscribeDeny("orders.secret.*")
                .build());
        try (RawClient alice = alice(); RawClient root = root()) {
            alice.send("SUB payments.x 1\r\nSUB orders.secret.plans 2\r\nSUB orders.* 3\r\nPING\r\n");
            alice.expectLine(SUB_DENIED.formatted("payments.x"));
            alice.expectLine(SUB_DENIED.formatted("orders.secret.plans"));
            alice.expectLine("PONG");
            root.send("PUB payments.x 1\r\na\r\nPUB orders.secret.plans 1\r\nb\r\nPUB orders.a 1\r\nc\r\nPING\r\n");
            root.expectLine("PONG");
            // Neither refused SUB exists: only sid 3 receives.
            RawClient.Delivery delivery = alice.readDelivery();
            assertThat(delivery.subject()).isEqualTo("orders.a");
            assertThat(delivery.sid()).isEqualTo("3");
            alice.assertOpen();
        }
        assertThat(server.stats().permissionViolations()).isEqualTo(2);
    }

    @Test
    void aWildcardSubscriptionNeverDeliversADeniedSubject() {
        server = start(Permissions.builder().subscribeDeny("orders.secret.*", "*.*.internal").build());
        try (RawClient alice = alice(); RawClient root = root()) {
            alice.send("SUB orders.> 1\r\nSUB > 2\r\nPING\r\n");
            alice.expectLine("PONG"); // both made: a wildcard overlapping a deny entry is allowed
            root.send("PUB orders.secret.plans 1\r\na\r\nPUB orders.eu.internal 1\r\nb\r\nPUB orders.new 1\r\nc\r\n"
                    + "PING\r\n");
            root.expectLine("PONG");
            List<String> received = List.of(alice.readDelivery().subject(), alice.readDelivery().subject());
            assertThat(received).containsExactly("orders.new", "orders.new");
            alice.assertOpen();
        }
        assertThat(server.stats().permissionViolations()).isZero();
        var response = new MonitorClient(server.monitorPort()).get("/varz", "Authorization", "Bearer root");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonValue varz = JsonParser.parseUnchecked(response.body());
        assertThat(number(field(varz, "ringbus"), "permission_filtered")).isEqualTo(4);
        assertThat(number(field(varz, "ringbus"), "permission_violations")).isZero();
    }

    @Test
    void queueSubscriptionsObeyTheSubscribeListsAndTheirQueueEntries() {
        server = start(Permissions.builder().subscribeAllow("jobs.* workers", "events.>")
                .subscribeDeny("events.private.>", "events.* spies").build());
        try (RawClient alice = alice()) {
            alice.send("SUB jobs.a workers 1\r\nSUB jobs.a others 2\r\nSUB jobs.a 3\r\nSUB events.x spies 4\r\n"
                    + "SUB events.private.x workers 5\r\nSUB events.x workers 6\r\nPING\r\n");
            alice.expectLine(SUB_DENIED.formatted("jobs.a\" using queue \"others"));
            alice.expectLine(SUB_DENIED.formatted("jobs.a"));
            alice.expectLine(SUB_DENIED.formatted("events.x\" using queue \"spies"));
            alice.expectLine(SUB_DENIED.formatted("events.private.x\" using queue \"workers"));
            alice.expectLine("PONG");
        }
        assertThat(server.stats().permissionViolations()).isEqualTo(4);
    }

    @Test
    void allowResponsesLetsTheClientAnswerOnceAReplySubjectDeliveredToIt() {
        server = start(Permissions.builder().allowResponses(Permissions.Responses.DEFAULT).build());
        try (RawClient alice = alice(); RawClient root = root()) {
            alice.send("SUB svc 1\r\nPING\r\n");
            alice.expectLine("PONG");
            root.send("SUB _INBOX.r1 9\r\nPUB svc _INBOX.r1 3\r\nreq\r\nPING\r\n");
            root.expectLine("PONG");
            assertThat(alice.readDelivery().replyTo()).isEqualTo("_INBOX.r1");

            alice.send("PUB _INBOX.r1 3\r\nans\r\nPUB _INBOX.r1 5\r\nagain\r\nPUB _INBOX.r2 1\r\nx\r\nPUB svc 1\r\nx\r\n"
                    + "PING\r\n");
            // The first answer is allowed; the second is one too many; r2 was never delivered;
            // with allow_responses and no publish allow list, nothing else may be published.
            alice.expectLine(PUB_DENIED.formatted("_INBOX.r1"));
            alice.expectLine(PUB_DENIED.formatted("_INBOX.r2"));
            alice.expectLine(PUB_DENIED.formatted("svc"));
            alice.expectLine("PONG");
            assertThat(root.readDelivery().text()).isEqualTo("ans");
            root.assertOpen();
        }
        assertThat(server.stats().permissionViolations()).isEqualTo(3);
    }

    @Test
    void allowResponsesWithMaxMessagesAndExpiry() throws Exception {
        server = start(Permissions.builder().publishAllow("status")
                .allowResponses(new Permissions.Responses(2, Duration.ofMillis(300))).build());
        try (RawClient alice = alice(); RawClient root = root()) {
            alice.send("SUB svc 1\r\nPING\r\n");
            alice.expectLine("PONG");
            root.send("PUB svc _INBOX.a 1\r\nq\r\nPUB svc _INBOX.b 1\r\nq\r\nPING\r\n");
            root.expectLine("PONG");
            alice.readDelivery();
            alice.readDelivery();
            alice.send("PUB _INBOX.a 1\r\n1\r\nPUB _INBOX.a 1\r\n2\r\nPUB _INBOX.a 1\r\n3\r\nPUB status 1\r\nx\r\nPING\r\n");
            alice.expectLine(PUB_DENIED.formatted("_INBOX.a")); // the third answer
            alice.expectLine("PONG");
            Thread.sleep(600); // past the expiry: _INBOX.b may not be answered any more
            alice.send("PUB _INBOX.b 4\r\nlate\r\nPING\r\n");
            alice.expectLine(PUB_DENIED.formatted("_INBOX.b"));
            alice.expectLine("PONG");
        }
    }

    @Test
    void permissionsNeverGrantMoreThanTheScope() {
        server = start(Permissions.builder().publishAllow(">").subscribeAllow(">").build(), Scope.PUBLIC);
        try (RawClient alice = alice()) {
            alice.send("PUB fed.a 1\r\nx\r\nSUB priv.b 1\r\nPUB orders.a 1\r\nx\r\nPING\r\n");
            alice.expectLine(PUB_DENIED.formatted("fed.a"));
            alice.expectLine(SUB_DENIED.formatted("priv.b"));
            alice.expectLine(PUB_DENIED.formatted("orders.a")); // PRIVATE by the broker's default
            alice.expectLine("PONG");
            alice.assertRoundTrip("pub.ok");
        }
        assertThat(server.stats().permissionViolations()).isEqualTo(3);
    }

    @Test
    @SuppressWarnings("try") // jnats' Connection.close() declares InterruptedException
    void jnatsReportsTheViolationsAndStaysConnected() throws Exception {
        server = start(Permissions.builder().publishDeny("secret.>").subscribeDeny("secret.>").build());
        RecordingErrorListener listener = new RecordingErrorListener();
        try (Connection nc = listener.connect(server, o -> o.userInfo("alice", "pw"))) {
            nc.publish("secret.a", "x".getBytes(StandardCharsets.UTF_8));
            nc.subscribe("secret.b");
            nc.flush(Duration.ofSeconds(5));
            Await.until("jnats reported both violations", () -> listener.errors.size() >= 2, listener::toString);
            assertThat(listener.errors).anySatisfy(e -> assertThat(e)
                    .contains("Permissions Violation for Publish to \"secret.a\""));
            assertThat(listener.errors).anySatisfy(e -> assertThat(e)
                    .contains("Permissions Violation for Subscription to \"secret.b\""));
            io.nats.client.Subscription ok = nc.subscribe("open.a");
            nc.publish("open.a", "y".getBytes(StandardCharsets.UTF_8));
            assertThat(ok.nextMessage(Duration.ofSeconds(5))).isNotNull();
            assertThat(nc.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
    }

    @Test
    void aTokenMayCarryPermissions() {
        server = ServerUnderTest.start(c -> c.token("t0ken", Scope.PRIVATE)
                .permissions("t0ken", Permissions.builder().publishAllow("only.this").build()));
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake("{\"verbose\":false,\"pedantic\":false,\"auth_token\":\"t0ken\"}");
            client.send("PUB other 1\r\nx\r\n");
            client.expectLine(PUB_DENIED.formatted("other"));
            client.assertRoundTrip("only.this");
        }
    }

    @Test
    void configFileReadsThePermissionKeys(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("server.properties");
        Files.writeString(file, """
                user.alice = pw:PRIVATE
                user.bob.smith = pw:PUBLIC
                permissions.alice.publish.allow = orders.>, _INBOX.>
                permissions.alice.publish.deny = orders.secret.*
                permissions.alice.subscribe.allow = orders.>, jobs.* workers
                permissions.alice.subscribe.deny = orders.secret.*
                permissions.alice.allow_responses = 3, 1s
                permissions.bob.smith.allow_responses = true
                """);
        ServerConfig.Builder builder = ServerConfig.builder();
        ConfigFile.apply(file, builder, new BrokerBuilderHolder().builder, new StorageSettings());
        ServerConfig config = builder.build();
        Permissions alice = config.permissions().get("alice");
        assertThat(alice.publishAllow()).containsExactly("orders.>", "_INBOX.>");
        assertThat(alice.publishDeny()).containsExactly("orders.secret.*");
        assertThat(alice.subscribeAllow()).containsExactly("orders.>", "jobs.* workers");
        assertThat(alice.subscribeDeny()).containsExactly("orders.secret.*");
        assertThat(alice.responses()).isEqualTo(new Permissions.Responses(3, Duration.ofSeconds(1)));
        Permissions bob = config.permissions().get("bob.smith");
        assertThat(bob.responses()).isEqualTo(Permissions.Responses.DEFAULT);
        assertThat(bob.publishAllow()).isEmpty(); // allow_responses alone: only responses

        Files.writeString(file, "user.alice = pw:PRIVATE\npermissions.alice.publish.allwo = a\n");
        assertThatThrownBy(() -> ConfigFile.apply(file, ServerConfig.builder(), new BrokerBuilderHolder().builder,
                new StorageSettings())).hasMessageContaining("permissions.alice.publish.allwo");
        Files.writeString(file, "permissions.nobody.publish.allow = a\n");
        ServerConfig.Builder orphan = ServerConfig.builder();
        ConfigFile.apply(file, orphan, new BrokerBuilderHolder().builder, new StorageSettings());
        assertThatThrownBy(orphan::build).hasMessageContaining("'nobody'");
        assertThatThrownBy(() -> Permissions.builder().publishAllow("a b"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Permissions.builder().subscribeAllow("a..b"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A broker builder for reading a config file (never built). */
    private static final class BrokerBuilderHolder {
        final BrokerBuilder builder = io.ringbus.core.Broker.builder();
    }
}
