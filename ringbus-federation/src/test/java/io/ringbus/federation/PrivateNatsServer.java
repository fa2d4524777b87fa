package io.ringbus.federation;

import io.ringbus.testkit.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A nats-server with JetStream of a test's own, on a free loopback port with its store in a
 * temporary directory, so that a test may pause ({@code SIGSTOP}) or stop it without disturbing
 * the shared one. Needs {@code /usr/sbin/nats-server} (bin/services uses it too); a test is
 * skipped without it.
 */
final class PrivateNatsServer implements AutoCloseable {
    private static final Path BINARY = Path.of("/usr/sbin/nats-server");

    private final Process process;
    private final int port;

    private PrivateNatsServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts one and waits until it accepts connections. */
    static PrivateNatsServer start(Path storeDir) throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(BINARY), "needs " + BINARY);
        int port = LoopbackPorts.free();
        Process process = new ProcessBuilder(BINARY.toString(), "-a", "127.0.0.1", "-p", String.valueOf(port), "-js",
                "-sd", storeDir.toString()).redirectErrorStream(true)
                .redirectOutput(storeDir.resolve("nats-server.log").toFile()).start();
        PrivateNatsServer server = new PrivateNatsServer(process, port);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!LoopbackPorts.accepting(port)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new IllegalStateException("nats-server did not start on port " + port + ": see "
                        + storeDir.resolve("nats-server.log"));
            }
            Thread.sleep(50);
        }
        return server;
    }


    /** @return its URL */
    String url() {
        return "nats://127.0.0.1:" + port;
    }

    /** Stops the process (SIGSTOP): connections stay open and nothing is answered. */
    void pause() throws IOException, InterruptedException {
        signal("-STOP");
        awaitEveryThreadStopped();
    }

    /**
     * {@code kill} returns once the signal is sent, not once every thread has stopped: a thread
     * running on the other core may still answer a request sent right after. Waits until
     * {@code /proc} shows each of the process's threads stopped ({@code T}).
     */
    private void awaitEveryThreadStopped() throws IOException, InterruptedException {
        Path tasks = Path.of("/proc", String.valueOf(process.pid()), "task");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!allStopped(tasks)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("nats-server " + process.pid() + " not stopped 5 s after SIGSTOP");
            }
            Thread.sleep(5);
        }
    }

    private static boolean allStopped(Path tasks) throws IOException {
        try (var threads = Files.list(tasks)) {
            return threads.allMatch(task -> {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    // state follows the command name, which is in parentheses
                    return stat.charAt(stat.lastIndexOf(')') + 2) == 'T';
                } catch (IOException gone) {
                    return true; // a thread that exited is not running either
                }
            });
        }
    }

    /** Lets it run again (SIGCONT). */
    void resume() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        int exit = new ProcessBuilder("kill", signal, String.valueOf(process.pid())).inheritIO().start().waitFor();
        if (exit != 0) {
            throw new IllegalStateException("kill " + signal + " " + process.pid() + " exited " + exit);
        }
    }

    @Override
    public void close() throws IOException {
        if (process.isAlive()) {
            try {
                signal("-CONT"); // a stopped process does not act on SIGTERM until continued
                process.destroy();
                process.waitFor();
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
