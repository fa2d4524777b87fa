package io.ringbus.testsuite.e2e;

import io.ringbus.testkit.Await;
import io.ringbus.testkit.ChildJvm;
import io.ringbus.testkit.LoopbackPorts;
import io.ringbus.testkit.ReferenceNatsServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JetStream server between the two services, in a process of its own that the test kills with
 * SIGKILL and starts again on the same port and store: ringbus-server ({@code RingbusServerMain},
 * JetStream from ringbus-jetstream on the class path, {@code --storage-dir}) or nats-server
 * ({@code -js -sd}). Its output goes to {@code transport.log} in the work directory.
 */
final class TransportServer implements AutoCloseable {
    /** Which server. */
    enum Kind {
        /** ringbus-server with ringbus-jetstream, in a JVM of its own. */
        RINGBUS,
        /** nats-server 2.9 {@code -js} ({@value ReferenceNatsServer#BINARY}). */
        NATS_SERVER
    }

    private final Kind kind;
    private final Path store;
    private final Path log;
    private final int port;
    private Process process;

    private TransportServer(Kind kind, Path work) throws IOException {
        this.kind = kind;
        this.store = Files.createDirectories(work.resolve("store"));
        this.log = work.resolve("transport.log");
        this.port = LoopbackPorts.free();
    }

    /**
     * Starts a server on a free port with a store under {@code work}.
     *
     * @param kind which server
     * @param work the directory for its store and log
     * @return the running server, accepting connections
     * @throws IOException when it cannot be started
     */
    static TransportServer start(Kind kind, Path work) throws IOException {
        TransportServer server = new TransportServer(kind, work);
        server.restart();
        return server;
    }

    /** @return the client URL, the same across restarts */
    String url() {
        return "nats://127.0.0.1:" + port;
    }

    /**
     * Starts the server again on the same port and store, and waits (at most 60 s) until it
     * accepts connections; a start that exits at once (the port not yet free) is tried again.
     *
     * @throws IOException when it cannot be started
     */
    void restart() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the transport still runs: pid=" + process.pid());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            process = new ProcessBuilder(command()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            Process started = process;
            Await.until(kind + " accepts connections on " + port + " (log " + log + ")", Duration.ofSeconds(60),
                    () -> !started.isAlive() || LoopbackPorts.accepting(port));
            if (process.isAlive()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException(kind + " exits at start with " + process.exitValue() + "; see " + log);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted restarting " + kind, e);
            }
        }
    }

    /**
     * SIGKILL, then waits until the process is gone.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(kind + " still runs 30 s after SIGKILL: pid=" + process.pid());
        }
    }

    private List<String> command() {
        List<String> command = new ArrayList<>();
        if (kind == Kind.NATS_SERVER) {
            command.addAll(List.of(ReferenceNatsServer.BINARY, "-a", "127.0.0.1", "-p", String.valueOf(port), "-js",
                    "-sd", store.toString()));
            return command;
        }
        command.addAll(List.of(ChildJvm.java(), "-Xmx192m", "-XX:+UseSerialGC"));
        command.addAll(ChildJvm.serverOptions());
        command.addAll(List.of("-cp", ChildJvm.classPath(), "io.ringbus.server.RingbusServerMain", "--host",
                "127.0.0.1", "--port", String.valueOf(port), "--no-monitor", "--storage-dir", store.toString()));
        return command;
    }

    /** Kills the server if it runs. */
    @Override
    public void close() {
        if (process != null) {
            try {
                kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return kind + " on " + port;
    }
}
