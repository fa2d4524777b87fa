package io.ringbus.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A JVM a crash test forks on the same code ({@link ChildJvm}): its stdout collected line by line
 * as it comes, its stderr in a file for the failure message, killed with SIGKILL when the test says.
 *
 * <p>Threading: {@link #lines()} may be read from any thread while the child runs; the rest is
 * called by the test's thread.
 */
public final class ChildProcess implements AutoCloseable {
    private final Process process;
    private final Path stderr;
    private final String name;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private ChildProcess(Process process, Path stderr, String name) {
        this.process = process;
        this.stderr = stderr;
        this.name = name;
        this.reader = Thread.ofPlatform().name(name + "-stdout").daemon(true).start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("(reading failed: " + e + ")");
            }
        });
    }

    /**
     * Starts {@code mainClass} in a JVM of its own on this JVM's class path.
     *
     * @param name      what the child is, for thread names and messages
     * @param jvmArgs   options before the class path (heap, GC, ...)
     * @param mainClass the class whose {@code main} runs
     * @param args      its arguments
     * @return the running child
     * @throws IOException when it cannot be started
     */
    public static ChildProcess start(String name, List<String> jvmArgs, Class<?> mainClass, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ChildJvm.java());
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", ChildJvm.classPath(), mainClass.getName()));
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile("ringbus-" + name, ".err");
        return new ChildProcess(new ProcessBuilder(command).redirectError(stderr.toFile()).start(), stderr, name);
    }

    /** @return the lines it printed so far, in order (a live view) */
    public List<String> lines() {
        return lines;
    }

    /**
     * Waits until it printed a line {@code wanted} accepts.
     *
     * @param wanted  the line looked for
     * @param seconds how long to wait
     * @return the first such line
     * @throws AssertionError when it exits or the time passes first, with its stderr's end
     */
    public String awaitLine(Predicate<String> wanted, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            for (String line : lines) {
                if (wanted.test(line)) {
                    return line;
                }
            }
            if (!process.isAlive() && !reader.isAlive()) {
                break;
            }
            Thread.sleep(5);
        }
        throw new AssertionError(name + " did not print the line awaited" + diagnostics());
    }

    /**
     * SIGKILL through {@link ProcessHandle} ({@link Process#destroyForcibly()} would also close our
     * end of its stdout, dropping lines not read yet).
     *
     * @return its exit status, once every line it printed was read
     */
    public int kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        return awaitExit(30);
    }

    /**
     * SIGTERM: a graceful stop.
     *
     * @return its exit status, once every line it printed was read
     */
    public int stop() throws InterruptedException {
        process.toHandle().destroy();
        return awaitExit(30);
    }

    /** @return its process id */
    public long pid() {
        return process.pid();
    }

    /** @return whether it still runs */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for it to exit by itself, and for the last of its lines.
     *
     * @param seconds how long to wait
     * @return its exit status
     * @throws AssertionError when it is still running after {@code seconds}
     */
    public int awaitExit(int seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " did not exit within " + seconds + " s" + diagnostics());
        }
        reader.join(10_000);
        return process.exitValue();
    }

    /** @return the end of its stderr, for a failure message */
    public String diagnostics() {
        try {
            String err = Files.readString(stderr);
            return "; " + name + " stderr:\n" + (err.length() > 4000 ? err.substring(err.length() - 4000) : err);
        } catch (IOException e) {
            return "; " + e;
        }
    }

    /** Kills it if it still runs and deletes its stderr file. */
    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.deleteIfExists(stderr);
    }
}
