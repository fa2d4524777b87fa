package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import io.ringbus.testkit.ChildProcess;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ringbus-outbox relay --sink log ...} in a JVM of its own ({@link ChildProcess}: this JVM's
 * java and class path), with its stdout lines collected as they come and its stderr kept for
 * failure messages. {@link #close()} kills it if it still runs.
 */
final class RelayProcess implements AutoCloseable {
    private final String name;
    private final ChildProcess child;

    private RelayProcess(String name, ChildProcess child) {
        this.name = name;
        this.child = child;
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
        List<String> mainArgs = new ArrayList<>(List.of("relay"));
        mainArgs.addAll(sinkArgs);
        mainArgs.addAll(List.of("--name", name));
        mainArgs.addAll(List.of(args));
        RelayProcess relay = new RelayProcess(name, ChildProcess.start("relay-" + name,
                List.of("-Xmx256m", "-XX:+UseSerialGC"), OutboxMain.class, mainArgs.toArray(String[]::new)));
        try {
            relay.awaitLine("relay " + name + " started");
        } catch (AssertionError e) {
            relay.close();
            throw e;
        }
        return relay;
    }

    /** @return its process id */
    long pid() {
        return child.pid();
    }

    /** @return whether it still runs */
    boolean isAlive() {
        return child.isAlive();
    }

    /** @return the row ids of the {@code delivered} lines printed so far, in order */
    List<Long> deliveredIds() {
        List<Long> ids = new ArrayList<>();
        for (String line : child.lines()) {
            if (line.startsWith("delivered ")) {
                ids.add(Long.parseLong(line.split(" ")[1]));
            }
        }
        return ids;
    }

    /** @return every stdout line so far */
    List<String> lines() {
        return List.copyOf(child.lines());
    }

    /** Waits until a line starting with {@code prefix} was printed. */
    void awaitLine(String prefix) {
        try {
            child.awaitLine(l -> l.startsWith(prefix), 60);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(name + ": interrupted while waiting for '" + prefix + "'", e);
        }
    }

    /** Waits until at least {@code count} rows were printed. */
    void awaitDelivered(int count) {
        Await.until(name + " prints " + count + " rows" + child.diagnostics(), Duration.ofSeconds(60),
                () -> deliveredIds().size() >= count || !child.isAlive());
    }

    /** SIGKILL; returns its exit status once the process is gone and all it printed was read. */
    int kill() throws InterruptedException {
        return child.kill();
    }

    /** SIGTERM (a graceful stop); returns once the process is gone and all it printed was read. */
    int stop() throws InterruptedException {
        return child.stop();
    }

    @Override
    public void close() throws IOException {
        child.close();
    }
}
