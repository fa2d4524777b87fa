package io.ringbus.federation;

import io.ringbus.testkit.LoopbackPorts;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The link's credentials and TLS against a nats-server that requires them: with the right user
 * and the server's CA trusted, two nodes share a subject; with a wrong password the broker is not
 * built, and the error names the servers and the reason.
 */
class NatsFederationSecurityTest {
    private static final Path NATS_SERVER = Path.of("/usr/sbin/nats-server");
    private static final Path OPENSSL = Path.of("/usr/bin/openssl");

    @TempDir
    Path dir;

    private static void run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile()).start();
        assertThat(p.waitFor()).as(String.join(" ", command)).isZero();
    }

    private SSLContext trusting(Path caPem) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    @Test
    void aLinkWithTlsAndCredentialsConnectsAndAWrongPasswordIsCountedNotSilent() throws Exception {
        assumeTrue(Files.isExecutable(NATS_SERVER) && Files.isExecutable(OPENSSL), "needs nats-server and openssl");
        run(dir, OPENSSL.toString(), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test-ca",
                "-keyout", "ca.key", "-out", "ca.pem");
        run(dir, OPENSSL.toString(), "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout",
                "server.key", "-out", "server.csr");
        Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        run(dir, OPENSSL.toString(), "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.pem");
        int port = LoopbackPorts.free();
        Files.writeString(dir.resolve("tls.conf"), "listen: 127.0.0.1:" + port + "\n"
                + "tls { cert_file: \"" + dir.resolve("server.pem") + "\", key_file: \"" + dir.resolve("server.key")
                + "\" }\nauthorization { user: ringbus, password: s3cret }\n");
        Process nats = new ProcessBuilder(NATS_SERVER.toString(), "-c", dir.resolve("tls.conf").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("nats.log").toFile()).start();
        try {
            Await.until("nats-server up", () -> LoopbackPorts.accepting(port));
            String url = "tls://127.0.0.1:" + port;
            SSLContext tls = trusting(dir.resolve("ca.pem"));
            assertThatThrownBy(() -> node("wrong", NatsFederation.builder(url).user("ringbus", "nope").tls(tls)
                    .build())).isInstanceOf(IllegalStateException.class).hasMessageContaining(url)
                    .hasMessageContaining("Authorization");
            try (Broker a = node("a", NatsFederation.builder(url).user("ringbus", "s3cret").tls(tls).build());
                 Broker b = node("b", NatsFederation.builder(url).user("ringbus", "s3cret").tls(tls).build())) {
                Await.until("linked over TLS", () -> a.stats().federation().state().equals("CONNECTED")
                        && b.stats().federation().state().equals("CONNECTED"));
                List<String> got = new CopyOnWriteArrayList<>();
                b.subscribe("secure.>", m -> got.add(m.subject()));
                Thread.sleep(300);
                a.publish("secure.x", "over tls");
                Await.until("crossed over TLS", () -> got.contains("secure.x"));
            }
        } finally {
            nats.destroy();
            nats.waitFor();
        }
    }

    private static Broker node(String name, NatsFederation link) {
        Broker broker = Broker.builder().name(name).federation(link).build();
        broker.registerSubject("secure.>", Scope.FEDERATED);
        return broker;
    }

}
