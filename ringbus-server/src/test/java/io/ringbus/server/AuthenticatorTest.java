package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.support.JsonValue;
import io.ringbus.core.Scope;
import io.ringbus.testkit.Await;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.ringbus.server.MonitorClient.field;
import static io.ringbus.server.MonitorClient.number;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The authentication plug-in: the last of the chain of authenticators, asked about clients no
 * built-in one recognises, off the event loops; its identity's scope applies; a refusal, a throw
 * or a late answer is an authorization violation counted under its reason; a slow plug-in holds
 * up nobody else. bcrypt checks run on a bounded pool, one queue per address taken in turns: a
 * flood from one address locks no other out, and the check of a client that left never runs.
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
        String hash = bcrypt("hunter2", 10);
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

    @Test
    void aFloodOfWrongBcryptPasswordsFromOneAddressLocksNoOtherAddressOut() throws Exception {
        String hash = bcrypt("hunter2", 10);
        server = ServerUnderTest.start(c -> c.user("dave", hash, Scope.PUBLIC).authChecksPerSource(8));
        int flood = 60;
        List<RawClient> attackers = new ArrayList<>();
        try {
            for (int i = 0; i < flood; i++) {
                RawClient attacker = RawClient.connect(server.port());
                attackers.add(attacker);
                attacker.readLine(); // INFO
                attacker.send("CONNECT {\"user\":\"dave\",\"pass\":\"guess-" + i + "\"}\r\nPING\r\n");
            }
            // Before the pool, the valid check queued behind all 60 and missed the 1 s authenticator timeout.
            try (RawClient dave = RawClient.connectFrom("127.0.0.2", server.port())) {
                dave.handshake("{\"verbose\":false,\"user\":\"dave\",\"pass\":\"hunter2\"}");
                dave.assertRoundTrip("pub.dave");
            }
            for (RawClient attacker : attackers) {
                // Refused: a wrong password, or, on a loaded machine, a check still queued at the timeout.
                assertThat(attacker.readUntilClosed()).hasSize(1).first().isIn("-ERR 'Authorization Violation'",
                        "-ERR 'Authentication Timeout'");
            }
        } finally {
            attackers.forEach(RawClient::close);
        }
        Map<AuthFailure, Long> reasons = server.stats().authFailuresByReason();
        assertThat(reasons.get(AuthFailure.AUTHENTICATOR_BUSY)).as("refused at once: 8 already waited for the address")
                .isPositive();
        assertThat(reasons.get(AuthFailure.AUTHENTICATOR_BUSY) + reasons.get(AuthFailure.BAD_PASSWORD)
                + reasons.get(AuthFailure.AUTHENTICATOR_TIMEOUT)).isEqualTo(flood);
    }

    @Test
    void theBcryptCheckOfAClientThatLeftIsNeverRun() throws Exception {
        String hash = bcrypt("hunter2", 12); // a check takes hundreds of ms: the others leave meanwhile
        server = ServerUnderTest.start(c -> c.monitorPort(0).token("r00t", Scope.ROOT).user("dave", hash, Scope.PUBLIC)
                .authCheckThreads(1).authenticatorTimeout(Duration.ofSeconds(30)).authTimeout(Duration.ofSeconds(30)));
        int leaving = 16;
        for (int i = 0; i < leaving; i++) {
            try (RawClient client = RawClient.connect(server.port())) {
                client.readLine(); // INFO
                client.send("CONNECT {\"user\":\"dave\",\"pass\":\"guess-" + i + "\"}\r\nPING\r\n");
            } // and leaves at once
        }
        MonitorClient monitor = new MonitorClient(server.monitorPort());
        Await.until("every check ran, expired or was dropped", () -> {
            JsonValue checks = authChecks(monitor);
            return number(checks, "run") + number(checks, "expired") + number(checks, "abandoned") == leaving;
        });
        JsonValue checks = authChecks(monitor);
        assertThat(number(checks, "expired")).isZero();
        assertThat(number(checks, "abandoned")).as("before the pool every one ran: %s", checks.toJson())
                .isGreaterThanOrEqualTo(leaving - 3);
        assertThat(number(checks, "queued")).isZero();
    }

    /**
     * 60 addresses keep sending wrong bcrypt passwords; a round of their checks (one per address)
     * takes longer than the authenticator timeout. Once each has failed, a valid user from a 61st
     * address is served before them and logs in (served in turn, it waited a whole round and
     * timed out, as the review found).
     */
    @Test
    void aValidLoginFromANewAddressIsServedBeforeAddressesThatFailed() throws Exception {
        String hash = bcrypt("hunter2", 10);
        server = ServerUnderTest.start(c -> c.monitorPort(0).token("r00t", Scope.ROOT).user("dave", hash, Scope.PUBLIC)
                .authCheckThreads(1).authenticatorTimeout(Duration.ofSeconds(3)).authTimeout(Duration.ofSeconds(5)));
        int sources = 60;
        AtomicBoolean flooding = new AtomicBoolean(true);
        List<Thread> attackers = new ArrayList<>();
        for (int a = 0; a < sources * 2; a++) {
            String from = "127.0.0." + (1 + a % sources);
            attackers.add(Thread.ofVirtual().start(() -> {
                while (flooding.get()) {
                    try (RawClient attacker = RawClient.connectFrom(from, server.port())) {
                        attacker.readLine(); // INFO
                        attacker.send("CONNECT {\"user\":\"dave\",\"pass\":\"guess\"}\r\nPING\r\n");
                        attacker.readUntilClosed();
                    } catch (RuntimeException | AssertionError closed) {
                        // refused or reset: again
                    }
                }
            }));
        }
        try {
            MonitorClient monitor = new MonitorClient(server.monitorPort());
            Await.until("every flooding address failed once", Duration.ofSeconds(120),
                    () -> number(authChecks(monitor), "suspect_sources") >= sources);
            try (RawClient dave = RawClient.connectFrom("127.1.0.1", server.port())) {
                dave.handshake("{\"verbose\":false,\"user\":\"dave\",\"pass\":\"hunter2\"}");
                dave.assertRoundTrip("pub.dave");
            }
        } finally {
            flooding.set(false);
            for (Thread attacker : attackers) {
                attacker.join(30_000);
            }
        }
    }

    private static JsonValue authChecks(MonitorClient monitor) {
        return field(field(monitor.json("/varz", "Authorization", "Bearer r00t"), "ringbus"), "auth_checks");
    }

    private static String bcrypt(String password, int cost) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return OpenBSDBCrypt.generate("2b", password.toCharArray(), salt, cost);
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
