package io.ringbus.bench.network;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A server under test running as a child process, its output going to a log file. The process
 * is killed when {@link #close()} is called and, failing that, by a shutdown hook of this JVM, so
 * that no server outlives the benchmark (also after Ctrl-C or a failure).
 */
public final class ServerProcess implements AutoCloseable {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("bench-kill-servers").unstarted(() -> {
            for (Process process : LIVE) {
                process.destroyForcibly();
            }
        }));
    }

    /**
     * Kills {@code process} when this JVM exits, unless {@link #untrack} was called first.
     *
     * @param process a child process
     */
    public static void track(Process process) {
        LIVE.add(process);
    }

    /** @param process a child process that has ended */
    public static void untrack(Process process) {
        LIVE.remove(process);
    }

    private final String label;
    private final Process process;
    private final Path log;
    private final int port;

    private ServerProcess(String label, Process process, Path log, int port) {
        this.label = label;
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /**
     * Starts a server of a comparison: prints its command line and log file to {@code progress},
     * logs to {@code <label>-<port>.log} in {@code workDir}, and gives it 30 s to listen.
     *
     * @param kind     the server
     * @param command  the command line, from {@link ServerKind#command}
     * @param port     the port it was told to listen on
     * @param workDir  where the log goes
     * @param progress where the command line is printed
     * @return the running server
     * @throws IOException when it cannot be started, exits, or does not listen in time
     * @see #start(String, List, int, Path, Duration)
     */
    static ServerProcess start(ServerKind kind, List<String> command, int port, Path workDir, PrintStream progress)
            throws IOException, InterruptedException {
        Path log = workDir.resolve(kind.label() + "-" + port + ".log");
        progress.println("  " + kind.label() + ": " + String.join(" ", command) + "  (log " + log + ")");
        return start(kind.label(), command, port, log, Duration.ofSeconds(30));
    }

    /**
     * Starts a server and waits until it accepts TCP connections on 127.0.0.1:{@code port}.
     *
     * @param label   the server's name in messages
     * @param command the command line
     * @param port    the port it was told to listen on
     * @param log     file that receives its stdout and stderr
     * @param startup how long it may take to accept a connection
     * @return the running server
     * @throws IOException when it cannot be started, exits, or does not listen in time; the
     *                     message holds the end of its log
     */
    public static ServerProcess start(String label, List<String> command, int port, Path log, Duration startup)
            throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        LIVE.add(process);
        ServerProcess server = new ServerProcess(label, process, log, port);
        long deadline = System.nanoTime() + startup.toNanos();
        while (!accepts(port)) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                String why = process.isAlive() ? "is not listening after " + startup.toSeconds() + "s"
                        : "exited with code " + process.exitValue();
                server.close();
                throw new IOException(label + " (" + String.join(" ", command) + ") " + why + "; log " + log
                        + ":\n" + server.logTail(20));
            }
            Thread.sleep(50);
        }
        return server;
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** @return whether the process still runs */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** @return the server's name */
    String label() {
        return label;
    }

    /** @return {@code nats://127.0.0.1:<port>} */
    String url() {
        return "nats://127.0.0.1:" + port;
    }

    /** @return the process id */
    public long pid() {
        return process.pid();
    }

    /** @return the peak resident set size so far (VmHWM) in KiB, or -1 where /proc is unavailable */
    long peakRssKiB() {
        return ProcStatus.peakRssKiB(process.pid());
    }

    /**
     * @param lines how many lines
     * @return the last lines of the server's log
     */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** @return the whole log, or an empty string when it cannot be read */
    public String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    /**
     * Asks the server to stop (SIGTERM), waits up to 10 s, then kills it.
     *
     * @return the exit code, or -1 when it had to be killed
     */
    int stop() throws InterruptedException {
        process.destroy();
        int code = -1;
        if (process.waitFor(10, TimeUnit.SECONDS)) {
            code = process.exitValue();
        } else {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        LIVE.remove(process);
        return code;
    }

    /** Kills the server if it still runs. */
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
