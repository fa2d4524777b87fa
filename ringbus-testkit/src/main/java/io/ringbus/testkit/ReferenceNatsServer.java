package io.ringbus.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The reference for differential tests: nats-server 2.9 ({@value #BINARY}) with a configuration
 * of the test's on a free loopback port, stopped on close.
 *
 * @param process the running nats-server
 * @param port    its client port on 127.0.0.1
 */
public record ReferenceNatsServer(Process process, int port) implements AutoCloseable {
    /** Where Debian's package installs it; tests comparing with it are skipped when it is missing. */
    public static final String BINARY = "/usr/sbin/nats-server";

    /** @return whether nats-server is installed */
    public static boolean installed() {
        return Files.isExecutable(Path.of(BINARY));
    }

    /**
     * Starts nats-server and waits until it accepts connections.
     *
     * @param dir    where the configuration file is written
     * @param config the configuration (a {@code tls} block, {@code authorization}, ...)
     * @return the running server
     * @throws IOException when it cannot be started
     */
    public static ReferenceNatsServer start(Path dir, String config) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path file = dir.resolve("nats-" + port + ".conf");
        Files.writeString(file, config + "\n");
        Process process = new ProcessBuilder(BINARY, "-a", "127.0.0.1", "-p", String.valueOf(port), "-c",
                file.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            Await.until("nats-server accepts connections on " + port, () -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("nats-server exited (" + process.exitValue() + ") with " + config);
                }
                try (Socket probe = new Socket()) {
                    probe.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                    return true;
                } catch (IOException notYet) {
                    return false;
                }
            });
        } catch (RuntimeException | AssertionError e) {
            process.destroyForcibly();
            throw e;
        }
        return new ReferenceNatsServer(process, port);
    }

    /**
     * Starts nats-server with JetStream ({@code -js}), its store in {@code dir}/jetstream.
     *
     * @param dir    where the configuration file and the store go
     * @param config more configuration, or an empty string
     * @return the running server
     * @throws IOException when it cannot be started
     */
    public static ReferenceNatsServer startJetStream(Path dir, String config) throws IOException {
        Files.createDirectories(dir);
        return start(dir, "jetstream { store_dir: \"" + dir.resolve("jetstream") + "\" }\n" + config);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
