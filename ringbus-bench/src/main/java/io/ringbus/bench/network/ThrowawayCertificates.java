package io.ringbus.bench.network;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A CA and a server certificate for 127.0.0.1 and localhost, made by the {@code openssl} command in
 * a scratch directory for one benchmark run, and the TLS configuration of each server that uses
 * them: both servers serve the same certificate, and the load generator trusts the same CA.
 * EC P-256 keys, PKCS#8 (as ringbus-server needs), valid for a day.
 *
 * @param ca     the CA certificate (PEM), what clients trust
 * @param cert   the server's certificate (PEM), for {@code DNS:localhost, IP:127.0.0.1}
 * @param key    the server's key (PEM, PKCS#8)
 */
record ThrowawayCertificates(Path ca, Path cert, Path key) {
    /** What the certificates are, for reports. */
    static final String DESCRIPTION = "EC P-256 server certificate for 127.0.0.1, signed by a throwaway CA";

    /**
     * Makes the CA and the server certificate in {@code dir}.
     *
     * @param dir an existing directory, deleted by the caller
     * @return the files
     * @throws IOException when {@code openssl} cannot be run or fails; the message holds its output
     */
    static ThrowawayCertificates create(Path dir) throws IOException, InterruptedException {
        ThrowawayCertificates files = new ThrowawayCertificates(dir.resolve("ca.pem"), dir.resolve("server.pem"),
                dir.resolve("server.key"));
        Path caKey = dir.resolve("ca.key");
        Path csr = dir.resolve("server.csr");
        Path ext = dir.resolve("server.ext");
        Files.writeString(ext, "subjectAltName=DNS:localhost,IP:127.0.0.1\n", StandardCharsets.UTF_8);
        openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", caKey.toString(), "-out", files.ca().toString(), "-days", "1", "-subj", "/CN=ringbus-bench CA");
        openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", files.key().toString(), "-out", csr.toString(), "-subj", "/CN=localhost");
        openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", files.ca().toString(), "-CAkey", caKey.toString(),
                "-CAcreateserial", "-out", files.cert().toString(), "-days", "1", "-extfile", ext.toString());
        return files;
    }

    /**
     * @param kind     the server
     * @param provider ringbus-server's {@code tls.provider}; ignored for nats-server
     * @param dir      where the file goes
     * @return a configuration file in the server's own format that requires TLS with these files:
     *         ringbus-server's properties, nats-server's {@code tls {}} block
     * @throws IOException when it cannot be written
     */
    Path serverConfig(ServerKind kind, String provider, Path dir) throws IOException {
        List<String> lines = new ArrayList<>();
        if (kind == ServerKind.RINGBUS) {
            lines.add("tls.cert_file=" + cert);
            lines.add("tls.key_file=" + key);
            lines.add("tls.provider=" + provider);
        } else {
            lines.add("tls {");
            lines.add("  cert_file: \"" + cert + "\"");
            lines.add("  key_file: \"" + key + "\"");
            lines.add("  timeout: 2");
            lines.add("}");
        }
        Path file = dir.resolve(kind == ServerKind.RINGBUS ? "ringbus-tls.properties" : "nats-tls.conf");
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }

    private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Process process;
        try {
            process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run openssl to make the benchmark's certificates (apt-get install openssl): "
                    + e.getMessage(), e);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed:\n" + output);
        }
    }
}
