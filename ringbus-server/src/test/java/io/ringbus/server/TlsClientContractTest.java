package io.ringbus.server;

import io.ringbus.core.Scope;
import io.ringbus.testkit.Await;
import io.ringbus.testkit.ReferenceNatsServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One TLS contract for the NATS clients in other languages, unchanged: a client's test program
 * ({@code src/test/go/clienttest}, {@code src/test/c}, {@code src/test/node/clienttest.js}) runs a
 * case against a ringbus-server whose client port requires TLS, with the client's TLS settings in
 * {@code CLIENTTEST_TLS_*} variables (the CA it trusts, its certificate for mutual TLS; each
 * program's header lists them). {@code pubsub} is the round trip (order and a binary payload,
 * over two connections); {@code connect-refused} passes when connecting fails and prints the
 * client's error ({@code REFUSED <error>}), checked against this client's words for the
 * certificate problem ({@link #refusal}); the server's counters say which side refused.
 *
 * <p>The certificates ({@link TestCertificates}) name {@code localhost}, the host in every URL.
 * jnats is covered by {@link TlsTest}. Skipped only when the client's toolchain is missing, as
 * {@link NatsClientContractTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
abstract class TlsClientContractTest {
    /** Bound on one program run, far above its need; the programs bound each of their waits too. */
    static final Duration CASE_TIMEOUT = Duration.ofSeconds(60);

    /** Why a client must refuse a server's certificate. */
    enum CertificateProblem {
        /** Signed by a CA the client does not trust. */
        UNTRUSTED,
        /** Valid, but for another host name. */
        OTHER_HOST,
        EXPIRED,
        NOT_YET_VALID
    }

    /** The test CA, and the server certificate it signed for localhost. */
    TestCertificates.Pair ca;
    TestCertificates.Pair serverCert;
    private TestCertificates certs;
    private TestCertificates.Pair otherCa;
    private TestCertificates.Pair otherHost;
    private TestCertificates.Pair expired;
    private TestCertificates.Pair notYetValid;
    private TestCertificates.Pair client;
    private TestCertificates.Pair stranger;
    private Path dir;

    /** Skips the class (assumption) when the client library or toolchain is missing, else builds. */
    abstract void buildProgram() throws Exception;

    /** @return the command line that runs {@code caseName} against {@code url} */
    abstract List<String> command(String url, String caseName);

    /** @return a regular expression found in this client's error when it refuses a server for {@code problem} */
    abstract String refusal(CertificateProblem problem);

    @BeforeAll
    void buildAndMakeCertificates(@TempDir Path tempDir) throws Exception {
        buildProgram();
        dir = tempDir;
        certs = new TestCertificates(dir);
        ca = certs.ca("ca");
        otherCa = certs.ca("other-ca");
        serverCert = certs.server(ca, "server");
        otherHost = certs.issue(ca, "other-host", "other.example", "DNS:other.example", 2);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        expired = certs.issue(ca, "expired", "localhost", "DNS:localhost,IP:127.0.0.1",
                now.minus(2, ChronoUnit.DAYS), now.minus(1, ChronoUnit.DAYS));
        notYetValid = certs.issue(ca, "not-yet-valid", "localhost", "DNS:localhost,IP:127.0.0.1",
                now.plus(1, ChronoUnit.DAYS), now.plus(2, ChronoUnit.DAYS));
        client = certs.issue(ca, "client", "alice", "email:alice@example.com", 2);
        stranger = certs.issue(otherCa, "stranger", "mallory", "DNS:mallory.example", 2);
    }

    @Test
    void upgradesToTlsAfterThePlaintextInfoAndDeliversInOrder() throws Exception {
        try (ServerUnderTest server = tlsServer(serverCert, c -> c)) {
            passes(server.port(), "pubsub", settings(ca, null));
            assertThat(server.server.stats().tlsHandshakeFailures()).isZero();
            assertThat(server.server.stats().tlsPlaintextClients()).isZero();
        }
    }

    /**
     * With {@code tls.verify} the same client connects with a certificate from the CA and is
     * refused without one or with one from another CA: the server fails both handshakes.
     */
    @Test
    void mutualTlsAcceptsACertificateFromTheCaAndRefusesNoneOrAForeignOne() throws Exception {
        try (ServerUnderTest server = tlsServer(serverCert, c -> c.tlsCaFile(ca.cert()).tlsVerify(true))) {
            passes(server.port(), "pubsub", settings(ca, client));
            assertThat(server.server.stats().tlsHandshakeFailures()).isZero();
            refused(server.port(), settings(ca, null));
            refused(server.port(), settings(ca, stranger));
            Await.until("both handshakes failed on the server", () -> server.server.stats().tlsHandshakeFailures() == 2,
                    () -> server.server.stats().tlsHandshakeFailures());
        }
    }

    @Test
    void aClientTrustingAnotherCaRefusesTheServer() throws Exception {
        try (ServerUnderTest server = tlsServer(serverCert, c -> c)) {
            assertThat(refused(server.port(), settings(otherCa, null))).containsPattern(refusal(CertificateProblem.UNTRUSTED));
            awaitOneFailedHandshake(server);
        }
    }

    /**
     * A client given no TLS settings does not speak plaintext to a port that requires TLS: on INFO's
     * {@code tls_required} it starts TLS by itself (as against nats-server), trusting only the
     * system's CAs, and refuses the test CA's certificate. The server sees a handshake, never a
     * plaintext CONNECT.
     */
    @Test
    void aClientWithoutTlsSettingsStartsTlsWhenInfoRequiresIt() throws Exception {
        try (ServerUnderTest server = tlsServer(serverCert, c -> c)) {
            assertThat(refused(server.port(), Map.of())).containsPattern(refusal(CertificateProblem.UNTRUSTED));
            awaitOneFailedHandshake(server);
            assertThat(server.server.stats().tlsPlaintextClients()).isZero();
        }
    }

    /**
     * With {@code handshake_first} the server says nothing in plaintext: a client that waits for
     * INFO before starting TLS is closed at {@code tls.timeout}, and counted.
     */
    @Test
    void aHandshakeFirstServerClosesAClientWaitingForPlaintextInfo() throws Exception {
        try (ServerUnderTest server = tlsServer(serverCert,
                c -> c.tlsHandshakeFirst(true).tlsTimeout(Duration.ofMillis(500)))) {
            refused(server.port(), settings(ca, null));
            Await.until("the handshake timed out on the server", () -> server.server.stats().tlsHandshakeTimeouts() == 1,
                    () -> server.server.stats().tlsHandshakeTimeouts());
        }
    }

    @Test
    void aCertificateForAnotherHostIsRefused() throws Exception {
        try (ServerUnderTest server = tlsServer(otherHost, c -> c)) {
            assertThat(refused(server.port(), settings(ca, null)))
                    .containsPattern(refusal(CertificateProblem.OTHER_HOST));
            awaitOneFailedHandshake(server);
        }
    }

    @Test
    void expiredAndNotYetValidCertificatesAreRefused() throws Exception {
        try (ServerUnderTest server = tlsServer(expired, c -> c)) {
            assertThat(refused(server.port(), settings(ca, null))).containsPattern(refusal(CertificateProblem.EXPIRED));
        }
        try (ServerUnderTest server = tlsServer(notYetValid, c -> c)) {
            assertThat(refused(server.port(), settings(ca, null)))
                    .containsPattern(refusal(CertificateProblem.NOT_YET_VALID));
        }
    }

    /**
     * The {@code tls-reload} case holds a connection; when it prints {@code RELOAD} the server's
     * certificate files are replaced by one from another CA and reloaded. A new connection
     * trusting only that CA then succeeds, the held one is never dropped, and a message goes both
     * ways between them.
     */
    @Test
    void aReloadedCertificateServesNewClientsWhileConnectedOnesStay() throws Exception {
        Path live = Files.createDirectories(dir.resolve("live"));
        Path cert = live.resolve("server.pem");
        Path key = live.resolve("server.key");
        Files.copy(serverCert.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(serverCert.key(), key, StandardCopyOption.REPLACE_EXISTING);
        TestCertificates.Pair renewed = certs.server(otherCa, "renewed");
        try (ServerUnderTest server = ServerUnderTest.start(b -> b.defaultScope(Scope.PUBLIC),
                c -> c.tlsCertFile(cert).tlsKeyFile(key))) {
            Map<String, String> env = new HashMap<>(settings(ca, null));
            env.put("CLIENTTEST_TLS_RELOAD_CA", otherCa.cert().toString());
            List<Boolean> reloads = new ArrayList<>();
            ClientProgram.Result result = ClientProgram.run(command(url(server.port()), "tls-reload"),
                    NatsClientContractTest.MODULE, env, CASE_TIMEOUT, line -> {
                        if (line.equals("RELOAD")) {
                            try {
                                Files.copy(renewed.key(), key, StandardCopyOption.REPLACE_EXISTING);
                                Files.copy(renewed.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
                            } catch (IOException e) {
                                throw new AssertionError(e);
                            }
                            reloads.add(server.server.reloadTls());
                        }
                    });
            assertPassed(result, "tls-reload");
            assertThat(reloads).containsExactly(true);
        }
    }

    /**
     * The reference: nats-server given the same certificates, the client gets the same outcome
     * (a round trip, or a refusal for the same reason). Skipped without {@code /usr/sbin/nats-server}.
     * nats-server 2.9 has no {@code handshake_first}: that case is not compared.
     */
    @Test
    void theClientGetsTheSameOutcomesFromNatsServer() throws Exception {
        assumeTrue(ReferenceNatsServer.installed(), ReferenceNatsServer.BINARY + " is not installed");
        String tls = "tls { cert_file: \"%s\", key_file: \"%s\" }";
        String verify = "tls { cert_file: \"%s\", key_file: \"%s\", ca_file: \"" + ca.cert() + "\", verify: true }";
        try (ReferenceNatsServer plain = ReferenceNatsServer.start(dir, tls.formatted(serverCert.cert(), serverCert.key()));
             ReferenceNatsServer mutual = ReferenceNatsServer.start(dir, verify.formatted(serverCert.cert(), serverCert.key()));
             ReferenceNatsServer wrongHost = ReferenceNatsServer.start(dir, tls.formatted(otherHost.cert(), otherHost.key()));
             ReferenceNatsServer old = ReferenceNatsServer.start(dir, tls.formatted(expired.cert(), expired.key()));
             ReferenceNatsServer early = ReferenceNatsServer.start(dir, tls.formatted(notYetValid.cert(), notYetValid.key()))) {
            passes(plain.port(), "pubsub", settings(ca, null));
            passes(mutual.port(), "pubsub", settings(ca, client));
            refused(mutual.port(), settings(ca, null));
            refused(mutual.port(), settings(ca, stranger));
            assertThat(refused(plain.port(), settings(otherCa, null))).containsPattern(refusal(CertificateProblem.UNTRUSTED));
            assertThat(refused(plain.port(), Map.of())).containsPattern(refusal(CertificateProblem.UNTRUSTED));
            assertThat(refused(wrongHost.port(), settings(ca, null))).containsPattern(refusal(CertificateProblem.OTHER_HOST));
            assertThat(refused(old.port(), settings(ca, null))).containsPattern(refusal(CertificateProblem.EXPIRED));
            assertThat(refused(early.port(), settings(ca, null))).containsPattern(refusal(CertificateProblem.NOT_YET_VALID));
        }
    }

    /** A server requiring TLS with {@code cert}, every subject PUBLIC. */
    static ServerUnderTest tlsServer(TestCertificates.Pair cert, UnaryOperator<ServerConfig.Builder> more) {
        return ServerUnderTest.start(b -> b.defaultScope(Scope.PUBLIC),
                c -> more.apply(c.tlsCertFile(cert.cert()).tlsKeyFile(cert.key())));
    }

    /** @return the variables for a client trusting {@code trusted}, presenting {@code presented} when not {@code null} */
    static Map<String, String> settings(TestCertificates.Pair trusted, TestCertificates.Pair presented) {
        Map<String, String> env = new HashMap<>();
        env.put("CLIENTTEST_TLS_CA", trusted.cert().toString());
        if (presented != null) {
            env.put("CLIENTTEST_TLS_CERT", presented.cert().toString());
            env.put("CLIENTTEST_TLS_KEY", presented.key().toString());
        }
        return env;
    }

    static String url(int port) {
        return "nats://localhost:" + port;
    }

    void passes(int port, String caseName, Map<String, String> env) throws Exception {
        assertPassed(ClientProgram.run(command(url(port), caseName), NatsClientContractTest.MODULE, env, CASE_TIMEOUT,
                line -> { }), caseName);
    }

    /** Runs connect-refused; @return the client's error, from its {@code REFUSED} line */
    private String refused(int port, Map<String, String> env) throws Exception {
        ClientProgram.Result result = ClientProgram.run(command(url(port), "connect-refused"),
                NatsClientContractTest.MODULE, env, CASE_TIMEOUT, line -> { });
        assertPassed(result, "connect-refused");
        return result.output().lines().filter(line -> line.startsWith("REFUSED ")).findFirst()
                .orElseThrow(() -> new AssertionError("no REFUSED line in:\n" + result.output()));
    }

    private static void assertPassed(ClientProgram.Result result, String caseName) {
        assertThat(result.output().lines()).as("output of %s:%n%s", caseName, result.output())
                .contains("PASS " + caseName);
        assertThat(result.exitCode()).as("exit code; output:%n%s", result.output()).isZero();
    }

    /** The client's refusal ends the handshake on the server too (its alert, or its close), and the connection. */
    private static void awaitOneFailedHandshake(ServerUnderTest server) {
        Await.until("one failed handshake and no connection on the server", () -> {
            ServerStats stats = server.server.stats();
            return stats.tlsHandshakeFailures() == 1 && stats.connections() == 0;
        }, server.server::stats);
    }
}
