package io.ringbus.bench.network;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The parent's side of an {@link OverloadServerMain} child JVM: sends commands on its stdin and
 * reads its stdout lines (stderr goes to a log file). Killed on {@link #close()} and by the
 * benchmark's shutdown hook.
 */
final class OverloadChild implements AutoCloseable {
    private static final String EOF = "\u0000EOF";

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path log;

    private OverloadChild(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread.ofPlatform().name("bench-overload-stdout").daemon().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // The child is gone; EOF below tells the waiting side.
            }
            lines.add(EOF);
        });
    }

    /**
     * @param command the child's command line
     * @param log     file for its stderr
     * @return the running child
     * @throws IOException when it cannot be started
     */
    static OverloadChild start(List<String> command, Path log) throws IOException {
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        ServerProcess.track(process);
        return new OverloadChild(process, log);
    }

    /** @return the child's process id */
    long pid() {
        return process.pid();
    }

    /**
     * @param line a command, without newline
     * @throws IOException when the child's stdin is closed
     */
    void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /**
     * Waits for a line starting with {@code prefix}; other lines are skipped.
     *
     * @param prefix  e.g. {@code "DONE "}
     * @param timeout longest wait
     * @return the line
     * @throws IOException when the child exits or the time is up first; the message holds its log
     */
    String await(String prefix, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.equals(EOF)) {
                String why = line == null ? "no '" + prefix.trim() + "' within " + timeout.toSeconds() + "s"
                        : "the child exited" + (process.waitFor(5, TimeUnit.SECONDS) ? " with code " + process.exitValue() : "");
                throw new IOException("overload server child: " + why + "; stderr in " + log);
            }
            if (line.startsWith(prefix)) {
                return line;
            }
            if (line.startsWith("ERROR")) {
                throw new IOException("overload server child: " + line);
            }
        }
    }

    /**
     * Sends EXIT and waits for the child to end.
     *
     * @param timeout longest wait
     * @return its exit code (3 after an OutOfMemoryError, with -XX:+ExitOnOutOfMemoryError), or
     *         -1 when it had to be killed
     */
    int exit(Duration timeout) throws InterruptedException {
        try {
            send("EXIT");
        } catch (IOException e) {
            // Already gone: its exit code tells why.
        }
        int code = -1;
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            code = process.exitValue();
        }
        close();
        return code;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        ServerProcess.untrack(process);
    }
}
