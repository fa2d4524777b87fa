package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Scope;
import io.ringbus.testkit.Await;
import io.ringbus.testkit.ReferenceNatsServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Client certificates, each case also given to nats-server 2.9 with the same certificates and
 * users (skipped without it): {@code tls.verify_and_map}'s mapping (the same certificate and
 * CONNECT are accepted or refused by both), and a certificate that expires while its client is
 * connected (its reconnect, resumed TLS session or not, is refused by both, with either TLS
 * provider and TLS 1.2 or 1.3).
 */
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException
class ClientCertificateTest {
    @TempDir
    static Path dir;
    private static TestCertificates certs;
    private static TestCertificates.Pair ca;
    private static TestCertificates.Pair serverCert;

    /** A configured user: ringbus needs a password for each; {@code natsPassword} null leaves it out for nats-server. */
    private record User(String name, String password, String natsPassword) {
    }

    /** What one client presents, and whether it must get in. */
    private record Attempt(String what, TestCertificates.Pair certificate, String user, String password,
                           boolean accepted) {
    }

    private static final List<User> USERS = List.of(
            new User("alice", "alices-password", "alices-password"),
            new User("root", "roots-password", "roots-password"),
            new User("alice@example.com", "unused-1", null),
            new User("CN=bob,O=Acme,C=US", "unused-2", null),
            new User("C=US, O=Acme, CN=dave", "unused-3", null),
            new User("carol.example", "unused-4", null),
            new User("CN=frank", "unused-5", null));

    @BeforeAll
    static void makeCertificates() {
        certs = new TestCertificates(dir);
        ca = certs.ca("ca");
        serverCert = certs.server(ca, "server");
    }

    private static List<Attempt> attempts() {
        TestCertificates.Pair nobody = certs.issueTo(ca, "nobody", "/CN=nobody", null, 2);
        TestCertificates.Pair root = certs.issueTo(ca, "root", "/CN=root", null, 2);
        return List.of(
                // Issue 25: an unmapped certificate followed by alice's password got in as alice.
                new Attempt("unmapped certificate, alice's password", nobody, "alice", "alices-password", false),
                // Issue 25: a bare CN named the user root.
                new Attempt("bare CN root", root, null, null, false),
                new Attempt("bare CN root, root's password", root, "root", "roots-password", false),
                new Attempt("email name", certs.issueTo(ca, "email", "/CN=someone", "email:alice@example.com", 2),
                        null, null, true),
                new Attempt("email name, any CONNECT user", certs.issueTo(ca, "email2", "/CN=other",
                        "email:alice@example.com", 2), "mallory", null, true),
                new Attempt("subject DN", certs.issueTo(ca, "bob", "/C=US/O=Acme/CN=bob", null, 2), null, null, true),
                new Attempt("subject DN in the other order", certs.issueTo(ca, "dave", "/C=US/O=Acme/CN=dave", null, 2),
                        null, null, true),
                new Attempt("DNS name", certs.issueTo(ca, "carol", "/CN=carol", "DNS:carol.example", 2),
                        null, null, true),
                new Attempt("subject with an emailAddress, spelled as Go does", certs.issueTo(ca, "frank",
                        "/emailAddress=frank@example.com/CN=frank", null, 2), null, null, true),
                new Attempt("DN that is no user's", certs.issueTo(ca, "eve", "/C=US/O=Evil/CN=bob", null, 2),
                        null, null, false));
    }

    @Test
    void verifyAndMapAcceptsAndRefusesTheSameClientsAsNatsServer() throws Exception {
        List<Attempt> attempts = attempts();
        try (ServerUnderTest server = ServerUnderTest.start(b -> {
            b.tlsCertFile(serverCert.cert()).tlsKeyFile(serverCert.key()).tlsCaFile(ca.cert()).tlsVerifyAndMap(true);
            USERS.forEach(user -> b.user(user.name(), user.password(), Scope.PUBLIC));
            return b;
        })) {
            Map<String, Boolean> ringbus = outcomes(server.port(), attempts);
            Map<String, Boolean> expected = new LinkedHashMap<>();
            attempts.forEach(attempt -> expected.put(attempt.what(), attempt.accepted()));
            assertThat(ringbus).isEqualTo(expected);
            long refused = attempts.stream().filter(attempt -> !attempt.accepted()).count();
            assertThat(server.server.stats().authFailuresByReason())
                    .containsEntry(AuthFailure.CERTIFICATE_NOT_MAPPED, refused);
        }
        assumeTrue(ReferenceNatsServer.installed(), ReferenceNatsServer.BINARY + " is not installed");
        StringJoiner users = new StringJoiner(",\n");
        for (User user : USERS) {
            users.add("{user: \"" + user.name() + "\"" + (user.natsPassword() == null ? ""
                    : ", password: \"" + user.natsPassword() + "\"") + "}");
        }
        String config = "tls { cert_file: \"" + serverCert.cert() + "\", key_file: \"" + serverCert.key()
                + "\", ca_file: \"" + ca.cert() + "\", verify_and_map: true }\n"
                + "authorization { users = [\n" + users + "\n] }";
        try (ReferenceNatsServer nats = ReferenceNatsServer.start(dir, config)) {
            Map<String, Boolean> expected = new LinkedHashMap<>();
            attempts.forEach(attempt -> expected.put(attempt.what(), attempt.accepted()));
            assertThat(outcomes(nats.port(), attempts)).as("nats-server 2.9").isEqualTo(expected);
        }
    }

    /** @return for each attempt, whether jnats connected */
    private static Map<String, Boolean> outcomes(int port, List<Attempt> attempts) {
        Map<String, Boolean> outcomes = new LinkedHashMap<>();
        for (Attempt attempt : attempts) {
            Options.Builder options = options(port, TestCertificates.context(ca, attempt.certificate()))
                    .noReconnect();
            if (attempt.user() != null) {
                options.userInfo(attempt.user(), attempt.password() == null ? "" : attempt.password());
            }
            try (Connection connection = Nats.connect(options.build())) {
                connection.flush(Duration.ofSeconds(5));
                outcomes.put(attempt.what(), true);
            } catch (Exception refused) {
                outcomes.put(attempt.what(), false);
            }
        }
        return outcomes;
    }

    private static Options.Builder options(int port, SSLContext tls) {
        // A refused client waits this long for an answer that never comes: 3 s, not jnats' 2 s
        // default, so that a loaded machine's TLS handshakes are not taken for refusals.
        return new Options.Builder().server("nats://localhost:" + port).sslContext(tls)
                .connectionTimeout(Duration.ofSeconds(3));
    }

    /**
     * Issue 25: with {@code tls.verify}, a client whose certificate expired while it was connected
     * came back by resuming its TLS session (the ticket the server had issued), never showing the
     * certificate again. Now its reconnect is refused, as a fresh connection with it is, by
     * ringbus with each provider and by nats-server; while the certificate is valid, the same
     * reconnect succeeds.
     */
    @Test
    @Timeout(180)
    void aCertificateThatExpiresWhileConnectedIsRefusedWhenTheClientReconnects() throws Exception {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant notAfter = now.plusSeconds(12);
        TestCertificates.Pair shortLived = certs.issue(ca, "short-lived", "alice", "email:alice@example.com",
                now.minus(1, ChronoUnit.HOURS), notAfter);
        List<AutoCloseable> servers = new ArrayList<>();
        Map<String, Integer> ports = new LinkedHashMap<>();
        try {
            for (TlsProvider provider : new TlsProvider[] {TlsProvider.OPENSSL, TlsProvider.JDK}) {
                ServerUnderTest server = ServerUnderTest.start(b -> b.tlsProvider(provider)
                        .tlsCertFile(serverCert.cert()).tlsKeyFile(serverCert.key()).tlsCaFile(ca.cert())
                        .tlsVerify(true));
                servers.add(server);
                ports.put("ringbus " + provider, server.port());
            }
            if (ReferenceNatsServer.installed()) {
                ReferenceNatsServer nats = ReferenceNatsServer.start(dir, "tls { cert_file: \"" + serverCert.cert()
                        + "\", key_file: \"" + serverCert.key() + "\", ca_file: \"" + ca.cert() + "\", verify: true }");
                servers.add(nats);
                ports.put("nats-server", nats.port());
            }
            Map<String, Connection> clients = new LinkedHashMap<>();
            for (Map.Entry<String, Integer> server : ports.entrySet()) {
                for (String protocol : new String[] {"TLSv1.2", "TLSv1.3"}) {
                    Connection connection = Nats.connect(options(server.getValue(), context(shortLived, protocol))
                            .maxReconnects(3)
                            .reconnectWait(Duration.ofMillis(100)).build());
                    clients.put(server.getKey() + " over " + protocol, connection);
                }
            }
            // While the certificate is valid, a reconnect (a resumed session where the server allows it) succeeds.
            for (Map.Entry<String, Connection> client : clients.entrySet()) {
                client.getValue().forceReconnect();
            }
            for (Map.Entry<String, Connection> client : clients.entrySet()) {
                Await.until(client.getKey() + " reconnected", () -> reconnected(client.getValue()));
            }
            assumeTrue(Instant.now().isBefore(notAfter), "the certificate expired before the clients connected");
            Await.until("the client certificate expired", Duration.ofSeconds(60),
                    () -> Instant.now().isAfter(notAfter.plusSeconds(1)));
            for (Connection connection : clients.values()) {
                connection.forceReconnect();
            }
            Await.until("every client gave up reconnecting with an expired certificate",
                    () -> clients.values().stream().allMatch(c -> c.getStatus() == Connection.Status.CLOSED),
                    () -> statuses(clients));
            for (Map.Entry<String, Integer> server : ports.entrySet()) {
                boolean connected;
                try (Connection fresh = Nats.connect(options(server.getValue(), context(shortLived, "TLSv1.3"))
                        .noReconnect().build())) {
                    connected = fresh.getStatus() == Connection.Status.CONNECTED;
                } catch (Exception refused) {
                    connected = false;
                }
                assertThat(connected).as("a fresh connection to %s with the expired certificate", server.getKey())
                        .isFalse();
            }
            for (AutoCloseable server : servers) {
                if (server instanceof ServerUnderTest ringbus) {
                    assertThat(ringbus.server.stats().tlsHandshakeFailures()).as("refusals counted").isPositive();
                }
            }
        } finally {
            for (AutoCloseable server : servers) {
                server.close();
            }
        }
    }

    private static String statuses(Map<String, Connection> clients) {
        StringJoiner statuses = new StringJoiner(", ");
        clients.forEach((name, client) -> statuses.add(name + ": " + client.getStatus() + " after "
                + client.getStatistics().getReconnects() + " reconnects"));
        return statuses.toString();
    }

    private static boolean reconnected(Connection connection) {
        return connection.getStatus() == Connection.Status.CONNECTED
                && connection.getStatistics().getReconnects() >= 1;
    }

    private static SSLContext context(TestCertificates.Pair client, String protocol) {
        return TestCertificates.context(ca, client, protocol);
    }
}
