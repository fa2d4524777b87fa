package io.ringbus.server;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Throw-away certificates made by {@code openssl} (EC P-256, PKCS#8 keys) in a test's temporary
 * directory: nothing with a private key is checked in.
 */
final class TestCertificates {
    private static final String PASSWORD = "changeit";
    private final Path dir;

    /** A PEM certificate and its key, and a PKCS#12 bundle of both for Java clients. */
    record Pair(Path cert, Path key, Path p12) {
    }

    TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** @return a self-signed CA named {@code name} */
    Pair ca(String name) {
        Pair ca = files(name);
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", ca.key().toString(), "-out", ca.cert().toString(), "-days", "2", "-subj", "/CN=" + name);
        return ca;
    }

    /**
     * @param days validity from now; -1 makes a certificate that expired yesterday
     * @param san  e.g. {@code DNS:localhost,IP:127.0.0.1}
     * @return a certificate for {@code cn} signed by {@code ca}
     */
    Pair issue(Pair ca, String name, String cn, String san, int days) {
        return issueTo(ca, name, "/CN=" + cn, san, days);
    }

    /**
     * @param subject as {@code openssl req -subj} takes it, the first RDN first, e.g.
     *                {@code /C=US/O=Acme/CN=bob} (RFC 2253: {@code CN=bob,O=Acme,C=US})
     * @param san     e.g. {@code email:bob@example.com}, or {@code null} for none
     * @return a certificate for {@code subject}, valid {@code days} from now, signed by {@code ca}
     */
    Pair issueTo(Pair ca, String name, String subject, String san, int days) {
        Pair leaf = files(name);
        Path csr = request(leaf, name, subject);
        openssl("x509", "-req", "-in", csr.toString(), "-CA", ca.cert().toString(), "-CAkey", ca.key().toString(),
                "-CAcreateserial", "-out", leaf.cert().toString(), "-days", Integer.toString(days),
                "-extfile", extensions(name, san).toString());
        return bundle(leaf);
    }

    /**
     * A certificate valid from {@code notBefore} to {@code notAfter} (whole seconds, UTC): one not
     * yet valid, or one that expired after a proper validity period. Made with {@code openssl ca},
     * as OpenSSL 3.0's {@code x509} sets no start date.
     *
     * @return a certificate for {@code cn} signed by {@code ca}
     */
    Pair issue(Pair ca, String name, String cn, String san, Instant notBefore, Instant notAfter) {
        Pair leaf = files(name);
        Path csr = request(leaf, name, "/CN=" + cn);
        Path state = dir.resolve(name + ".ca");
        Path config = state.resolve("openssl.cnf");
        try {
            Files.createDirectories(state);
            Files.writeString(state.resolve("index.txt"), "");
            Files.writeString(config, String.join("\n", "[ca]", "default_ca = window", "[window]",
                    "database = " + state.resolve("index.txt"), "new_certs_dir = " + state, "rand_serial = yes",
                    "default_md = sha256", "policy = anything", "unique_subject = no", "[anything]",
                    "commonName = supplied", ""));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        DateTimeFormatter utc = DateTimeFormatter.ofPattern("uuuuMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
        openssl("ca", "-batch", "-notext", "-config", config.toString(), "-cert", ca.cert().toString(),
                "-keyfile", ca.key().toString(), "-in", csr.toString(), "-out", leaf.cert().toString(),
                "-startdate", utc.format(notBefore), "-enddate", utc.format(notAfter),
                "-extfile", extensions(name, san).toString());
        return bundle(leaf);
    }

    /** Makes the key of {@code leaf} and a signing request for {@code subject}. */
    private Path request(Pair leaf, String name, String subject) {
        Path csr = dir.resolve(name + ".csr");
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", leaf.key().toString(), "-out", csr.toString(), "-subj", subject);
        return csr;
    }

    private Path extensions(String name, String san) {
        Path ext = dir.resolve(name + ".ext");
        try {
            Files.writeString(ext, san == null ? "basicConstraints=CA:FALSE\n" : "subjectAltName=" + san + "\n");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return ext;
    }

    /** Writes the PKCS#12 bundle of a signed {@code leaf}. */
    private Pair bundle(Pair leaf) {
        openssl("pkcs12", "-export", "-in", leaf.cert().toString(), "-inkey", leaf.key().toString(),
                "-out", leaf.p12().toString(), "-passout", "pass:" + PASSWORD);
        return leaf;
    }

    /** @return a server certificate for localhost and 127.0.0.1 */
    Pair server(Pair ca, String name) {
        return issue(ca, name, "localhost", "DNS:localhost,IP:127.0.0.1", 2);
    }

    /** @return TLS trusting {@code ca}, presenting {@code client} when not {@code null} */
    static SSLContext context(Pair ca, Pair client) {
        return context(ca, client, "TLS");
    }

    /**
     * @param protocol {@code TLS}, or {@code TLSv1.2} for a client that offers nothing newer
     * @return TLS trusting {@code ca}, presenting {@code client} when not {@code null}
     */
    static SSLContext context(Pair ca, Pair client, String protocol) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            try (InputStream in = Files.newInputStream(ca.cert())) {
                int n = 0;
                for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                    trust.setCertificateEntry("ca" + n++, c);
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (client != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(client.p12())) {
                    keys.load(in, PASSWORD.toCharArray());
                }
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, PASSWORD.toCharArray());
            }
            SSLContext context = SSLContext.getInstance(protocol);
            context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    private Pair files(String name) {
        return new Pair(dir.resolve(name + ".pem"), dir.resolve(name + ".key"), dir.resolve(name + ".p12"));
    }

    private void openssl(String... args) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new AssertionError(command + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new AssertionError(command + " cannot run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
