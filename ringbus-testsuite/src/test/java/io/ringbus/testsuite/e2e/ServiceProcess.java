package io.ringbus.testsuite.e2e;

import io.ringbus.testkit.ChildProcess;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One service's successive lives: each a JVM of its own ({@link ChildProcess}) on this JVM's class
 * path, started again after every SIGKILL. The lines of every life are kept, for the counts the
 * service prints.
 */
final class ServiceProcess implements AutoCloseable {
    private final String name;
    private final Class<?> mainClass;
    private final String[] args;
    private final List<ChildProcess> lives = new ArrayList<>();

    ServiceProcess(String name, Class<?> mainClass, String... args) {
        this.name = name;
        this.mainClass = mainClass;
        this.args = args.clone();
    }

    /**
     * Starts a new life and waits (at most 60 s) for its {@code <name> started} line.
     *
     * @throws IOException when the JVM cannot be started
     * @throws InterruptedException when interrupted while waiting
     */
    void start() throws IOException, InterruptedException {
        ChildProcess life = ChildProcess.start(name + "-" + lives.size(),
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"), mainClass, args);
        lives.add(life);
        life.awaitLine(l -> l.equals(name + " started"), 60);
    }

    /**
     * SIGKILL of the current life; returns once it is gone.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    void kill() throws InterruptedException {
        lives.getLast().kill();
    }

    /** @return whether the current life runs */
    boolean isAlive() {
        return !lives.isEmpty() && lives.getLast().isAlive();
    }

    /** @return each life's printed lines, in order of the lives */
    List<List<String>> lines() {
        return lives.stream().map(l -> List.copyOf(l.lines())).toList();
    }

    /** @return the current life's stderr's end, for a failure message */
    String diagnostics() {
        return lives.isEmpty() ? "" : lives.getLast().diagnostics();
    }

    /** Kills the current life if it runs, and removes every life's stderr file. */
    @Override
    public void close() throws IOException {
        for (ChildProcess life : lives) {
            life.close();
        }
    }
}
