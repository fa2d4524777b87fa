package io.ringbus.bench.storage;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The peer: a private {@code nats-server -js -sd DIR} on 127.0.0.1 and a port of its own (never
 * 4222, where a real server may listen), its output in a log file. Killed on {@link #close()} and,
 * failing that, when this JVM exits.
 */
public final class JetStreamServer implements AutoCloseable {
    /** Where Debian's nats-server package installs the binary. */
    static final Path DEBIAN_NATS_SERVER = Path.of("/usr/sbin/nats-server");

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("bench-kill-jetstream").unstarted(() -> {
            for (Process process : LIVE) {
                process.destroyForcibly();
            }
        }));
    }

    private final Process process;
    private final int port;
    private final Path log;

    private JetStreamServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /**
     * @param explicit {@code --nats-server}, or {@code null} to look on the PATH and in /usr/sbin
     * @return the binary, or {@code null} when there is none
     */
    public static Path locate(Path explicit) {
        if (explicit != null) {
            return Files.isExecutable(explicit) ? explicit : null;
        }
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    candidates.add(Path.of(dir, "nats-server"));
                }
            }
        }
        candidates.add(DEBIAN_NATS_SERVER);
        for (Path p : candidates) {
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * @param binary nats-server
     * @return what {@code nats-server --version} prints, e.g. {@code nats-server: v2.9.10}
     */
    public static String version(Path binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }

    /**
     * Starts the server without waiting for it.
     *
     * @param binary   nats-server
     * @param storeDir its JetStream store directory ({@code -sd})
     * @param port     its client port
     * @param log      file for its output (appended to)
     * @return the starting server
     * @throws IOException when it cannot be started
     */
    public static JetStreamServer spawn(Path binary, Path storeDir, int port, Path log) throws IOException {
        Process process = new ProcessBuilder(binary.toString(), "-js", "-sd", storeDir.toString(), "-a", "127.0.0.1",
                "-p", Integer.toString(port)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        LIVE.add(process);
        return new JetStreamServer(process, port, log);
    }

    /**
     * Waits until it accepts TCP connections.
     *
     * @param limit how long it may take
     * @throws IOException when it exits or does not listen in time; the message holds the end of its log
     */
    public void awaitListening(Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!accepts()) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                String why = process.isAlive() ? "is not listening after " + limit.toSeconds() + "s"
                        : "exited with code " + process.exitValue();
                close();
                throw new IOException("nats-server on port " + port + " " + why + "; log " + log + ":\n" + logTail(10));
            }
            Thread.sleep(10);
        }
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** @return its process */
    Process process() {
        return process;
    }

    /** @return whether its process runs */
    boolean alive() {
        return process.isAlive();
    }

    /** @return {@code nats://127.0.0.1:<port>} */
    public String url() {
        return "nats://127.0.0.1:" + port;
    }

    /**
     * @param lines how many
     * @return the last lines of its log
     */
    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** Asks it to stop (SIGTERM: it writes its stream state out), waits up to 30 s, then kills it. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        LIVE.remove(process);
    }

    /** Kills it if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LIVE.remove(process);
    }
}
