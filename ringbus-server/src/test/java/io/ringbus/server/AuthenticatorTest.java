package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The authentication plug-in: the last of the chain of authenticators, asked about clients no
 * built-in one recognises, off the event loops; its identity's scope applies; a refusal, a throw
 * or a late answer is an authorization violation counted under its reason; a slow plug-in holds
 * up nobody else.
 */
class AuthenticatorTest {
    private ServerUnderTest server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Connection connect(String user, String password) throws Exception {
        return Nats.connect(new Options.Builder().server(server.url()).userInfo(user, password).maxReconnects(0)
                .connectionTimeout(Duration.ofSeconds(5)).build());
    }

    @Test
    void thePluginDecidesWhoAClientIsAndItsScopeApplies() throws Exception {
        List<AuthRequest> asked = new CopyOnWriteArrayList<>();
        Authenticator directory = request -> {
            asked.add(request);
            boolean known = "carol".equals(request.user()) && "from-ldap".equals(request.password());
            return CompletableFuture.completedFuture(known ? new Identity("carol", Scope.PRIVATE, null) : null);
        };
        server = ServerUnderTest.start(c -> c.token("static-token", Scope.PUBLIC)
                .authenticator(directory, Duration.ofSeconds(2)));
        Connection carol = connect("carol", "from-ldap");
        try {
            carol.flush(Duration.ofSeconds(2));
            assertThat(carol.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        } finally {
            carol.close();
        }
        assertThat(asked).anySatisfy(r -> {
            assertThat(r.user()).isEqualTo("carol");
            assertThat(r.remote()).isNotNull();
            assertThat(r.toString()).doesNotContain("from-ldap");
        });
        assertRefused("carol", "wrong");
    }

    @Test
    void aThrowingOrLatePluginRefusesAndASlowOneHoldsUpNobodyElse() throws Exception {
        Authenticator slow = request -> {
            if ("thrower".equals(request.user())) {
                throw new IllegalStateException("directory down");
            }
            try {
                Thread.sleep(3_000); // blocks, as a careless plug-in would: on its own virtual thread
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return CompletableFuture.completedFuture(new Identity(request.user(), Scope.PUBLIC, null));
        };
        server = ServerUnderTest.start(c -> c.ioThreads(1).token("static-token", Scope.PUBLIC)
                .authenticator(slow, Duration.ofMillis(500)));
        assertRefused("thrower", "x");
        CompletableFuture<Void> late = CompletableFuture.runAsync(() -> assertRefused("sleepy", "x"));
        Thread.sleep(100); // the slow plug-in is now asked
        long start = System.nanoTime();
        Connection other = Nats.connect(new Options.Builder().server(server.url()).token("static-token".toCharArray())
                .maxReconnects(0).build());
        try {
            other.flush(Duration.ofSeconds(2));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the event loop was never held")
                    .isLessThan(Duration.ofSeconds(2));
        } finally {
            other.close();
        }
        late.get();
        assertThat(server.server.stats().authFailures()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aBcryptPasswordIsCheckedOffTheEventLoop() throws Exception {
        byte[] salt = new byte[16];
        new java.security.SecureRandom().nextBytes(salt);
        String hash = org.bouncycastle.crypto.generators.OpenBSDBCrypt.generate("2b", "hunter2".toCharArray(), salt, 10);
        server = ServerUnderTest.start(c -> c.user("dave", hash, Scope.PUBLIC));
        Connection dave = connect("dave", "hunter2");
        try {
            dave.flush(Duration.ofSeconds(2));
            assertThat(dave.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        } finally {
            dave.close();
        }
        assertRefused("dave", "hunter3");
        assertRefused("dave", hash); // the hash itself is no password
    }

    @Test
    void builtInsAnswerFirstAndOnlyClientsNoneOfThemKnowsReachThePlugin() throws Exception {
        List<String> asked = new CopyOnWriteArrayList<>();
        Authenticator directory = request -> {
            asked.add(request.user());
            return switch (request.user()) {
                case "erin" -> CompletableFuture.completedFuture(new Identity("erin@ldap", Scope.PUBLIC, null));
                case "locked" -> CompletableFuture.failedFuture(
                        new AuthenticationException(AuthFailure.BAD_PASSWORD, "account locked"));
                case "thrower" -> throw new IllegalStateException("directory down");
                case "sleepy" -> new CompletableFuture<>(); // never answers
                default -> CompletableFuture.completedFuture(null);
            };
        };
        server = ServerUnderTest.start(c -> c.monitorPort(0).user("alice", "pw", Scope.PUBLIC)
                .authenticator(directory, Duration.ofMillis(300)));

        try (RawClient alice = RawClient.connect(server.port());
             RawClient erin = RawClient.connect(server.port())) {
            alice.handshake("{\"verbose\":false,\"name\":\"a\",\"user\":\"alice\",\"pass\":\"pw\"}");
            erin.handshake("{\"verbose\":false,\"name\":\"e\",\"user\":\"erin\",\"pass\":\"x\"}");
            String connz = new MonitorClient(server.monitorPort()).get("/connz?auth=1", "Authorization",
                    "Basic " + java.util.Base64.getEncoder().encodeToString("alice:pw".getBytes(UTF_8))).body();
            assertThat(connz).contains("\"authorized_user\":\"alice\"").contains("\"authorized_user\":\"erin@ldap\"");
        }
        for (String user : List.of("alice", "nobody", "locked", "thrower", "sleepy")) {
            assertRefused(user, "wrong");
        }
        assertThat(asked).as("alice is the built-in's: accepted or refused without the plug-in")
                .containsExactly("erin", "nobody", "locked", "thrower", "sleepy");
        Map<AuthFailure, Long> reasons = server.server.stats().authFailuresByReason();
        assertThat(reasons.get(AuthFailure.BAD_PASSWORD)).as("alice's, and the plug-in's own reason").isEqualTo(2);
        assertThat(reasons.get(AuthFailure.REFUSED)).isEqualTo(1);
        assertThat(reasons.get(AuthFailure.AUTHENTICATOR_ERROR)).isEqualTo(1);
        assertThat(reasons.get(AuthFailure.AUTHENTICATOR_TIMEOUT)).isEqualTo(1);
    }

    /** Sends CONNECT with {@code user} and {@code password}: the server answers only the violation and closes. */
    private void assertRefused(String user, String password) {
        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine(); // INFO
            client.send("CONNECT {\"user\":\"" + user + "\",\"pass\":\"" + password + "\"}\r\nPING\r\n");
            assertThat(client.readUntilClosed()).as(user).containsExactly("-ERR 'Authorization Violation'");
        }
    }
}
