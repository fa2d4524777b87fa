package io.ringbus.server;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.Connection;
import io.ringbus.core.Scope;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.ringbus.testkit.Await;
import io.netty.handler.ssl.OpenSsl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * TLS on the client port against jnats and plain JDK sockets: TLS after INFO and TLS first,
 * mutual TLS, the certificate checks a client makes (CA, expiry, host name), plaintext and slow
 * clients refused and counted, and a certificate reload that keeps connected clients. The tests
 * of the server's side run with each {@link TlsProvider}: OpenSSL (netty-tcnative, which must
 * load on Linux x86-64) and the JDK's.
 */
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
class TlsTest {
    @TempDir
    static Path dir;
    private static TestCertificates certs;
    private static TestCertificates.Pair ca;
    private static TestCertificates.Pair otherCa;
    private static TestCertificates.Pair serverCert;
    private static TestCertificates.Pair client;
    private static TestCertificates.Pair strangerClient;

    @BeforeAll
    static void makeCertificates() {
        certs = new TestCertificates(dir);
        ca = certs.ca("ca");
        otherCa = certs.ca("other-ca");
        serverCert = certs.server(ca, "server");
        client = certs.issue(ca, "client", "alice", "email:alice@example.com", 2);
        strangerClient = certs.issue(otherCa, "stranger", "mallory", "DNS:mallory.example", 2);
    }

    private static ServerUnderTest tlsServer(TestCertificates.Pair cert, UnaryOperator<ServerConfig.Builder> more) {
        return tlsServer(TlsProvider.AUTO, cert, more);
    }

    private static ServerUnderTest tlsServer(TlsProvider provider, TestCertificates.Pair cert,
                                             UnaryOperator<ServerConfig.Builder> more) {
        assumeLoads(provider);
        return ServerUnderTest.start(b -> more.apply(b.tlsProvider(provider).tlsCertFile(cert.cert())
                .tlsKeyFile(cert.key())));
    }

    /** netty-tcnative-boringssl-static ships for Linux x86-64: there OpenSSL must load; elsewhere it may not. */
    private static void assumeLoads(TlsProvider provider) {
        if (provider == TlsProvider.OPENSSL && !("Linux".equals(System.getProperty("os.name"))
                && "amd64".equals(System.getProperty("os.arch")))) {
            assumeTrue(OpenSsl.isAvailable(), "OpenSSL not available here: " + OpenSsl.unavailabilityCause());
        }
    }

    private static Connection connect(int port, SSLContext tls, UnaryOperator<Options.Builder> more)
            throws Exception {
        return Nats.connect(more.apply(new Options.Builder().server("nats://localhost:" + port).sslContext(tls)
                .connectionTimeout(Duration.ofSeconds(5)).maxReconnects(0).noReconnect()).build());
    }

    /**
     * For a client that must fail: one refused after the handshake (TLS 1.3 checks the client's
     * certificate last) or one waiting for a plaintext INFO that never comes fails only at
     * jnats's connection timeout, 1 s here.
     */
    private static Options.Builder refusalWait(Options.Builder options) {
        return options.connectionTimeout(Duration.ofSeconds(1));
    }

    private static void assertRoundTrip(Connection connection, String subject) throws Exception {
        Subscription subscription = connection.subscribe(subject);
        connection.flush(Duration.ofSeconds(5));
        connection.publish(subject, "over tls".getBytes(StandardCharsets.UTF_8));
        Message message = subscription.nextMessage(Duration.ofSeconds(5));
        assertThat(message).as("message on %s", subject).isNotNull();
        assertThat(new String(message.getData(), StandardCharsets.UTF_8)).isEqualTo("over tls");
        subscription.unsubscribe();
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void jnatsUpgradesToTlsAfterThePlaintextInfo(TlsProvider provider) throws Exception {
        try (ServerUnderTest server = tlsServer(provider, serverCert, b -> b);
             RawClient raw = RawClient.connect(server.port())) {
            String info = raw.readLine();
            assertThat(info).startsWith("INFO ").contains("\"tls_required\":true").doesNotContain("tls_verify");
            try (Connection connection = connect(server.port(), TestCertificates.context(ca, null), o -> o)) {
                assertRoundTrip(connection, "pub.tls");
                assertThat(connection.getServerInfo().isTLSRequired()).isTrue();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void jnatsWithTlsFirstHandshakesBeforeInfo(TlsProvider provider) throws Exception {
        try (ServerUnderTest server = tlsServer(provider, serverCert, b -> b.tlsHandshakeFirst(true))) {
            try (Connection connection = connect(server.port(), TestCertificates.context(ca, null),
                    Options.Builder::tlsFirst)) {
                assertRoundTrip(connection, "pub.first");
            }
            // A client that waits for INFO first hears nothing in plaintext and is timed out.
            assertThatThrownBy(() -> connect(server.port(), TestCertificates.context(ca, null), TlsTest::refusalWait)
                    .close()).isInstanceOf(Exception.class);
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void mutualTlsAcceptsAClientCertificateSignedByTheCa(TlsProvider provider) throws Exception {
        try (ServerUnderTest server = tlsServer(provider, serverCert, b -> b.tlsCaFile(ca.cert()).tlsVerify(true));
             RawClient raw = RawClient.connect(server.port())) {
            assertThat(raw.readLine()).contains("\"tls_required\":true").contains("\"tls_verify\":true");
            try (Connection connection = connect(server.port(), TestCertificates.context(ca, client), o -> o)) {
                assertRoundTrip(connection, "pub.mtls");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void verifyAndMapTakesTheUserTheClientCertificateNames(TlsProvider provider) throws Exception {
        // The client certificate's CN is alice (email SAN alice@example.com): she needs no password.
        try (ServerUnderTest server = tlsServer(provider, serverCert, b -> b.tlsCaFile(ca.cert()).tlsVerifyAndMap(true)
                .user("alice@example.com", "unused-password", Scope.PRIVATE)
                .user("bob", "bobs-password", Scope.PUBLIC))) {
            try (Connection connection = connect(server.port(), TestCertificates.context(ca, client), o -> o)) {
                assertRoundTrip(connection, "mapped.alice");
            }
            // A verified certificate naming no configured user: an authorization violation.
            try (ServerUnderTest other = tlsServer(provider, serverCert, b -> b.tlsCaFile(ca.cert())
                    .tlsVerifyAndMap(true)
                    .user("bob", "bobs-password", Scope.PUBLIC))) {
                assertThatThrownBy(() -> connect(other.port(), TestCertificates.context(ca, client),
                        o -> refusalWait(o.maxReconnects(0))).close()).isInstanceOf(Exception.class);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void mutualTlsRefusesClientsWithoutOrWithAForeignCertificate(TlsProvider provider) throws Exception {
        try (ServerUnderTest server = tlsServer(provider, serverCert, b -> b.tlsCaFile(ca.cert()).tlsVerify(true))) {
            assertThatThrownBy(() -> connect(server.port(), TestCertificates.context(ca, null), TlsTest::refusalWait)
                    .close()).isInstanceOf(Exception.class);
            assertThatThrownBy(() -> connect(server.port(), TestCertificates.context(ca, strangerClient),
                    TlsTest::refusalWait)
                    .close()).isInstanceOf(Exception.class);
            Await.until("two failed handshakes counted",
                    () -> counters(server).tlsHandshakeFailures() == 2,
                    () -> counters(server).tlsHandshakeFailures());
            assertThat(server.server.stats().connections()).isZero();
        }
    }

    @Test
    void aClientTrustingAnotherCaRefusesTheServer() throws Exception {
        try (ServerUnderTest server = tlsServer(serverCert, b -> b)) {
            assertThatThrownBy(() -> connect(server.port(), TestCertificates.context(otherCa, null), o -> o).close())
                    .isInstanceOf(Exception.class);
        }
    }

    @Test
    void anExpiredServerCertificateIsRefused() throws Exception {
        TestCertificates.Pair expired = certs.issue(ca, "expired", "localhost", "DNS:localhost,IP:127.0.0.1", -1);
        try (ServerUnderTest server = tlsServer(expired, b -> b)) {
            assertThatThrownBy(() -> connect(server.port(), TestCertificates.context(ca, null), o -> o).close())
                    .isInstanceOf(Exception.class);
            // The same client accepts the valid certificate: the expiry is what was refused.
        }
        try (ServerUnderTest server = tlsServer(serverCert, b -> b);
             Connection connection = connect(server.port(), TestCertificates.context(ca, null), o -> o)) {
            assertRoundTrip(connection, "pub.valid");
        }
    }

    /**
     * jnats 2.21.1 does not check the host name (it sets no endpoint identification); nats.go
     * and the JDK's HTTPS check do: that check is made here with a JDK socket after INFO.
     */
    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void aCertificateForAnotherHostIsRefusedByAHostNameCheckingClient(TlsProvider provider) throws Exception {
        TestCertificates.Pair elsewhere = certs.issue(ca, "elsewhere-" + provider, "other.example",
                "DNS:other.example", 2);
        try (ServerUnderTest server = tlsServer(provider, elsewhere, b -> b)) {
            assertThatThrownBy(() -> tlsAfterInfo(server.port(), TestCertificates.context(ca, null)))
                    .isInstanceOf(IOException.class);
        }
        try (ServerUnderTest server = tlsServer(provider, serverCert, b -> b)) {
            assertThat(tlsAfterInfo(server.port(), TestCertificates.context(ca, null))).startsWith("PONG");
        }
    }

    /** Reads INFO, starts TLS checking the host name as HTTPS does, and answers PING's PONG. */
    private static String tlsAfterInfo(int port, SSLContext tls) throws IOException {
        try (Socket plain = new Socket("localhost", port)) {
            plain.setSoTimeout(5_000);
            InputStream in = plain.getInputStream();
            int b;
            while ((b = in.read()) != '\n') {
                if (b < 0) {
                    throw new IOException("closed before INFO");
                }
            }
            try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, "localhost", port, true)) {
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                socket.setSSLParameters(parameters);
                socket.startHandshake();
                socket.getOutputStream().write("CONNECT {\"verbose\":false}\r\nPING\r\n".getBytes(StandardCharsets.UTF_8));
                socket.getOutputStream().flush();
                byte[] reply = new byte[6];
                int n = socket.getInputStream().readNBytes(reply, 0, 6);
                return new String(reply, 0, n, StandardCharsets.US_ASCII);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void aPlaintextClientIsClosedAndCounted(TlsProvider provider) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        assumeLoads(provider);
        try (ServerUnderTest server = ServerUnderTest.startMetered(registry,
                b -> b.tlsProvider(provider).tlsCertFile(serverCert.cert()).tlsKeyFile(serverCert.key()));
             RawClient raw = RawClient.connect(server.port())) {
            assertThat(raw.readLine()).contains("\"tls_required\":true");
            raw.send("CONNECT {\"verbose\":false}\r\nPING\r\n");
            assertThat(raw.readUntilClosed()).doesNotContain("PONG");
            Await.until("plaintext client counted", () -> counters(server).tlsPlaintextClients() == 1);
            assertThat(registry.get("ringbus.server.tls.failures").tag("reason", "plaintext").functionCounter()
                    .count()).isEqualTo(1.0);
            // jnats without TLS refuses a server that requires it.
            assertThatThrownBy(() -> Nats.connect(new Options.Builder().server("nats://localhost:" + server.port())
                    .noReconnect().build()).close()).isInstanceOf(Exception.class);
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void aClientThatNeverHandshakesIsClosedAtTheTlsTimeout(TlsProvider provider) throws Exception {
        try (ServerUnderTest server = tlsServer(provider, serverCert, b -> b.tlsTimeout(Duration.ofMillis(200)));
             RawClient raw = RawClient.connect(server.port())) {
            assertThat(raw.readLine()).contains("\"tls_required\":true");
            assertThat(raw.readUntilClosed()).isEmpty();
            Await.until("timeout counted", () -> counters(server).tlsHandshakeTimeouts() == 1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void aReloadedCertificateServesNewClientsWhileConnectedOnesStay(TlsProvider provider) throws Exception {
        Path live = Files.createDirectories(dir.resolve("live-" + provider));
        Path cert = live.resolve("server.pem");
        Path key = live.resolve("server.key");
        Files.copy(serverCert.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(serverCert.key(), key, StandardCopyOption.REPLACE_EXISTING);
        TestCertificates.Pair renewed = certs.server(otherCa, "renewed-" + provider);
        assumeLoads(provider);
        try (ServerUnderTest server = ServerUnderTest.start(b -> b.tlsProvider(provider).tlsCertFile(cert)
                .tlsKeyFile(key));
             Connection before = connect(server.port(), TestCertificates.context(ca, null), o -> o)) {
            assertRoundTrip(before, "pub.before");
            Files.copy(renewed.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(renewed.key(), key, StandardCopyOption.REPLACE_EXISTING);
            assertThat(server.server.reloadTls()).isTrue();
            try (Connection after = connect(server.port(), TestCertificates.context(otherCa, null), o -> o)) {
                assertRoundTrip(after, "pub.after");
            }
            assertThatThrownBy(() -> connect(server.port(), TestCertificates.context(ca, null), o -> o).close())
                    .isInstanceOf(Exception.class);
            assertRoundTrip(before, "pub.still");
            assertThat(before.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
    }

    @Test
    void changedCertificateFilesAreLoadedWithoutBeingAsked() throws Exception {
        Path live = Files.createDirectories(dir.resolve("polled"));
        Path cert = live.resolve("server.pem");
        Path key = live.resolve("server.key");
        Files.copy(serverCert.cert(), cert);
        Files.copy(serverCert.key(), key);
        TestCertificates.Pair renewed = certs.server(otherCa, "polled-renewed");
        try (ServerUnderTest server = ServerUnderTest.start(b -> b.tlsCertFile(cert).tlsKeyFile(key))) {
            Files.copy(renewed.key(), key, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(renewed.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
            Await.until("the renewed certificate served", Duration.ofSeconds(20), () -> {
                try (Connection after = connect(server.port(), TestCertificates.context(otherCa, null), o -> o)) {
                    return after.getStatus() == Connection.Status.CONNECTED;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void theProviderInUseIsShownInVarz(TlsProvider provider) throws Exception {
        try (ServerUnderTest server = tlsServer(provider, serverCert, b -> b.monitorPort(0))) {
            MonitorClient monitor = new MonitorClient(server.monitorPort());
            String shown = MonitorClient.string(MonitorClient.field(monitor.json("/varz"), "ringbus"), "tls_provider");
            assertThat(shown).startsWith(provider == TlsProvider.OPENSSL ? "OpenSSL (" : "JDK");
        }
    }

    @Test
    void incompleteTlsSettingsAreRefusedByName() {
        assertThatThrownBy(() -> ServerConfig.builder().tlsCertFile(serverCert.cert()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tlsKeyFile");
        assertThatThrownBy(() -> ServerConfig.builder().tlsCertFile(serverCert.cert()).tlsKeyFile(serverCert.key())
                .tlsVerify(true).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tlsCaFile");
        assertThatThrownBy(() -> ServerUnderTest.start(b -> b.tlsCertFile(serverCert.cert())
                .tlsKeyFile(serverCert.cert()))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tls.key_file");
    }

    private static ServerStats counters(ServerUnderTest server) {
        return server.server.stats();
    }
}
