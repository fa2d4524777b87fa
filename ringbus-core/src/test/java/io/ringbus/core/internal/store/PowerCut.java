package io.ringbus.core.internal.store;

import io.ringbus.testkit.ChildProcess;
import io.ringbus.testkit.PowerLossFileSystem;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One power cut of the in-process power-cut tests (issue 30): a child JVM working on a store on a
 * {@link PowerLossFileSystem} is killed with SIGKILL a drawn delay after it said it was ready, and
 * the power cut, torn (a drawn seed) or not. Draws come from the test's seeded {@link Random}, so a
 * run repeats.
 *
 * @param delayMillis how long after the child was ready it is killed
 * @param torn        whether the cut keeps a random prefix of unsynced pages
 * @param tornSeed    the seed of the torn cut
 */
record PowerCut(long delayMillis, boolean torn, long tornSeed) {
    /** The JVM options of every child: small, quick to start. */
    private static final List<String> CHILD_JVM = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /**
     * @param random the test's seeded random
     * @param min    the shortest delay, ms
     * @param spread the delay's random part, ms
     * @return the next cut: delay {@code min} to {@code min + spread - 1} ms, torn or not
     */
    static PowerCut draw(Random random, int min, int spread) {
        long delay = min + random.nextInt(spread);
        boolean torn = random.nextBoolean();
        return new PowerCut(delay, torn, random.nextLong());
    }

    /**
     * Starts {@code main} in a JVM of its own with the store's directory as its first argument.
     *
     * @param name what the child is, for messages
     * @param main its main class
     * @param dir  the store's directory on the mount
     * @param args its other arguments
     * @return the running child
     * @throws IOException when it cannot be started
     */
    static ChildProcess start(String name, Class<?> main, Path dir, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of(dir.toString()));
        all.addAll(List.of(args));
        return ChildProcess.start(name, CHILD_JVM, main, all.toArray(String[]::new));
    }

    /**
     * Waits until {@code child} printed {@code ready}, then {@link #delayMillis}, kills it (SIGKILL, exit
     * status 137 checked) and cuts the power; closes the child.
     *
     * @return every line it printed
     */
    List<String> killAndCut(ChildProcess child, String ready, PowerLossFileSystem fs) throws Exception {
        List<String> lines = kill(child, ready);
        cut(fs);
        return lines;
    }

    /**
     * As {@link #killAndCut} without the cut: a process crash, the page cache kept.
     *
     * @return every line it printed
     */
    List<String> kill(ChildProcess child, String ready) throws Exception {
        try (child) {
            try {
                child.awaitLine(ready::equals, 120);
            } catch (AssertionError e) {
                List<String> lines = child.lines();
                throw new AssertionError("no '" + ready + "' line; its last lines: "
                        + lines.subList(Math.max(0, lines.size() - 20), lines.size()), e);
            }
            Thread.sleep(delayMillis);
            assertThat(child.kill()).as("killed by SIGKILL").isEqualTo(137);
            return List.copyOf(child.lines());
        }
    }

    /** Cuts the power, torn or not. */
    void cut(PowerLossFileSystem fs) throws IOException {
        if (torn) {
            fs.cut(tornSeed);
        } else {
            fs.cut();
        }
    }

    /** @return for a report: {@code killed <n> ms after <ready>, torn|not torn} */
    String describe(String ready) {
        return "killed " + delayMillis + " ms after " + ready + ", " + (torn ? "torn" : "not torn");
    }

    /** @return the elements in both, sorted */
    static <T extends Comparable<T>> Set<T> common(Collection<T> a, Collection<T> b) {
        Set<T> both = new TreeSet<>(a);
        both.retainAll(b);
        return both;
    }
}
