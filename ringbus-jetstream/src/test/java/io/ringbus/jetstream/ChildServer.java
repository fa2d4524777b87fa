package io.ringbus.jetstream;

import io.ringbus.testkit.ChildJvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ringbus-server ({@code RingbusServerMain}, JetStream on by default, {@code fsync} at its default
 * {@code always}) in a JVM of its own on a store directory, to be killed with SIGKILL and started
 * again on the same store. Its output is kept for failure messages.
 */
final class ChildServer implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
    private static final int LOG_LINES = 200;

    private final Process process;
    private final int port;
    private final List<String> log;

    private ChildServer(Process process, int port, List<String> log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /**
     * Starts a server on {@code store} on a free port and waits (at most 60 s) until it listens.
     *
     * @param store the storage directory, kept across starts
     * @return the running server
     */
    static ChildServer start(Path store) throws Exception {
        return start(List.of("--host", "127.0.0.1", "--port", "0", "--no-monitor", "--storage-dir", store.toString()));
    }

    /**
     * Starts a server with these command-line arguments (they must include {@code --host 127.0.0.1}
     * and a port, {@code 0} for a free one) and waits (at most 60 s) until it listens.
     *
     * @param arguments {@code RingbusServerMain}'s arguments
     * @return the running server
     */
    static ChildServer start(List<String> arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(ChildJvm.java(), "-Xmx192m"));
        command.addAll(ChildJvm.serverOptions());
        command.addAll(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-cp", ChildJvm.classPath(),
                "io.ringbus.server.RingbusServerMain"));
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> log = new ArrayList<>();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("child-server-log").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (log) {
                        if (log.size() == LOG_LINES) {
                            log.removeFirst();
                        }
                        log.add(line);
                    }
                    Matcher listening = LISTENING.matcher(line);
                    if (listening.find()) {
                        port.complete(Integer.parseInt(listening.group(1)));
                    }
                }
            } catch (IOException ended) {
                // the process is gone
            }
            port.completeExceptionally(new AssertionError("server did not start: " + String.join("\n", log)));
        });
        try {
            return new ChildServer(process, port.get(60, TimeUnit.SECONDS), log);
        } catch (Exception e) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** @return the client URL */
    String url() {
        return "nats://127.0.0.1:" + port;
    }

    /** Kills the server with SIGKILL and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("server still running 30 s after SIGKILL");
        }
    }

    /** @return the last lines the server wrote */
    String log() {
        synchronized (log) {
            return String.join("\n", log);
        }
    }

    /** Kills the server (SIGKILL) and waits for it, at most 30 s. */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
