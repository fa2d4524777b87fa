package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * {@code ringbus-outbox relay --sink log ...} in a JVM of its own (this JVM's java and class
 * path), with its stdout lines collected as they come and its stderr kept in a file for failure
 * messages. {@link #close()} kills it if it still runs.
 */
final class RelayProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path stderr;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private RelayProcess(String name, Process process, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        this.reader = Thread.ofPlatform().name("read-" + name).daemon(true).start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("(reading failed: " + e + ")");
            }
        });
    }

    /**
     * Starts {@code OutboxMain relay --sink log --name <name> <args>} and waits for its
     * {@code relay <name> started} line.
     */
    static RelayProcess start(String name, String... args) throws IOException {
        return startWithSink(name, List.of("--sink", "log"), args);
    }

    /**
     * Starts {@code OutboxMain relay <sinkArgs> --name <name> <args>} and waits for its
     * {@code relay <name> started} line.
     */
    static RelayProcess startWithSink(String name, List<String> sinkArgs, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-Xmx256m", "-XX:+UseSerialGC", "-cp", io.ringbus.testkit.ChildJvm.classPath(),
                OutboxMain.class.getName(), "relay"));
        command.addAll(sinkArgs);
        command.addAll(List.of("--name", name));
        command.addAll(List.of(args));
        Path stderr = Files.createTempFile("ringbus-relay-" + name, ".err");
        Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        RelayProcess relay = new RelayProcess(name, process, stderr);
        try {
            relay.awaitLine("relay " + name + " started");
        } catch (AssertionError e) {
            relay.close();
            throw e;
        }
        return relay;
    }

    /** @return the process */
    Process process() {
        return process;
    }

    /** @return the row ids of the {@code delivered} lines printed so far, in order */
    List<Long> deliveredIds() {
        List<Long> ids = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("delivered ")) {
                ids.add(Long.parseLong(line.split(" ")[1]));
            }
        }
        return ids;
    }

    /** @return every stdout line so far */
    List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits until a line starting with {@code prefix} was printed. */
    void awaitLine(String prefix) {
        Await.until(name + " prints '" + prefix + "'" + diagnostics(), Duration.ofSeconds(60),
                () -> lines.stream().anyMatch(l -> l.startsWith(prefix)) || !process.isAlive() && !reader.isAlive());
        if (lines.stream().noneMatch(l -> l.startsWith(prefix))) {
            throw new AssertionError(name + " exited with " + process.exitValue() + " before printing '" + prefix
                    + "'" + diagnostics());
        }
    }

    /** Waits until at least {@code count} rows were printed. */
    void awaitDelivered(int count) {
        Await.until(name + " prints " + count + " rows" + diagnostics(), Duration.ofSeconds(60),
                () -> deliveredIds().size() >= count || !process.isAlive());
    }

    /**
     * SIGKILL; returns once the process is gone and all it printed was read. Signals through
     * {@link ProcessHandle}: {@link Process#destroyForcibly()} would also close our end of its
     * stdout and drop the lines not read yet.
     */
    void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        awaitExit();
    }

    /** SIGTERM (a graceful stop); returns once the process is gone and all it printed was read. */
    int stop() throws InterruptedException {
        process.toHandle().destroy();
        return awaitExit();
    }

    private int awaitExit() throws InterruptedException {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " did not exit" + diagnostics());
        }
        reader.join(10_000);
        return process.exitValue();
    }

    private String diagnostics() {
        String err;
        try {
            err = Files.readString(stderr);
        } catch (IOException e) {
            err = e.toString();
        }
        return "; stderr so far:\n" + (err.length() > 4000 ? err.substring(err.length() - 4000) : err);
    }

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
