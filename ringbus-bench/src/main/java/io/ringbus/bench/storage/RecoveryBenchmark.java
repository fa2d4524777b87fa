package io.ringbus.bench.storage;

import io.ringbus.bench.Median;
import io.ringbus.bench.network.EphemeralPorts;
import io.ringbus.bench.network.ServerProcess;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Issue 30's recovery benchmark ({@code bin/bench storage recovery}): for each log size, each
 * server's store is filled with the same messages, the server started once on it and killed with
 * SIGKILL; then, {@code runs} times per scenario, the page cache is dropped, the server started, and
 * the time from its process start to the first PubAck with the next sequence measured
 * ({@link FirstAck}: jnats over loopback), and the server killed again. Scenarios: {@code killed}
 * (the store as the killed process left it, read from the disk) and {@code cut} (besides, what a
 * power cut can take that the server never forced, see {@link RecoveryServer#cut()}). One store on
 * the disk at a time.
 */
final class RecoveryBenchmark {
    /** The stream's pattern, both servers. */
    static final String PATTERN = "recovery.>";
    /** The subject the fills publish to. */
    static final String FILL_SUBJECT = "recovery.fill";

    /** The scenarios. */
    enum Scenario { KILLED, CUT }

    private final Path work;
    private final int payloadBytes;
    private final int runs;
    private final boolean dropCache;
    private final Duration timeout;
    private final PrintStream out;

    /**
     * @param work         where the stores and the servers' logs go
     * @param payloadBytes per message
     * @param runs         measured restarts per scenario
     * @param dropCache    whether to drop the page cache before each start
     * @param timeout      longest a restart may take to serve
     * @param out          progress
     */
    RecoveryBenchmark(Path work, int payloadBytes, int runs, boolean dropCache, Duration timeout, PrintStream out) {
        this.work = work;
        this.payloadBytes = payloadBytes;
        this.runs = runs;
        this.dropCache = dropCache;
        this.timeout = timeout;
        this.out = out;
    }

    /**
     * Fills one server's store with {@code bytes} of payload and measures both scenarios; deletes the
     * store after.
     *
     * @param server a server with an empty store; closed here
     * @param bytes  payload bytes to fill (messages of {@code payloadBytes})
     * @return a row per scenario
     */
    List<StorageResults.RecoveryRow> run(RecoveryServer server, long bytes) throws InterruptedException {
        long messages = Math.max(1, bytes / Math.max(1, payloadBytes));
        List<StorageResults.RecoveryRow> rows = new ArrayList<>();
        try (server) {
            long start = System.nanoTime();
            server.fill(messages, payloadBytes);
            long storeBytes = server.storeBytes();
            out.printf(Locale.ROOT, "  %-14s filled %,d messages of %,d B (%,.0f MiB on disk) in %.1f s: %s%n",
                    server.system(), messages, payloadBytes, storeBytes / 1048576.0, (System.nanoTime() - start) / 1e9,
                    server.filledBy());
            long next = messages + 1;
            Restart warm = restart(server, next++, "warmup");
            if (warm.failure != null) {
                rows.add(failed(server, Scenario.KILLED, storeBytes, messages, warm.failure));
                return rows;
            }
            for (Scenario scenario : Scenario.values()) {
                String cut = null;
                double[] firstAck = new double[runs];
                double[] open = new double[runs];
                double[] read = new double[runs];
                String failure = null;
                for (int i = 0; i < runs && failure == null; i++) {
                    if (scenario == Scenario.CUT) {
                        cut = server.cut();
                    }
                    Restart r = restart(server, next++, scenario.name().toLowerCase(Locale.ROOT) + "-" + i);
                    failure = r.failure;
                    firstAck[i] = r.millis;
                    open[i] = r.openMillis;
                    read[i] = r.readBytes;
                }
                StorageResults.RecoveryRow row = failure != null
                        ? failed(server, scenario, storeBytes, messages, failure)
                        : new StorageResults.RecoveryRow(server.system(), scenario.name().toLowerCase(Locale.ROOT),
                        storeBytes, messages, payloadBytes, runs, dropCache ? "dropped" : "kept",
                        Median.of(firstAck), max(firstAck), Median.of(open), (long) Median.of(read),
                        server.filledBy(), cut, null);
                rows.add(progress(row));
            }
        } catch (IOException e) {
            rows.add(failed(server, Scenario.KILLED, 0, messages, e.getMessage()));
        }
        return rows;
    }

    /** One start: the page cache dropped, the process started, timed to its first PubAck, killed. */
    private Restart restart(RecoveryServer server, long expected, String label) throws InterruptedException {
        Restart r = new Restart();
        if (dropCache && !PageCache.drop()) {
            r.failure = "cannot drop the page cache (needs root on Linux; --recovery-keep-cache to run anyway)";
            return r;
        }
        int port = EphemeralPorts.pick();
        Path log = work.resolve(server.system() + "-" + expected + "-" + label + ".log");
        Process process = null;
        try {
            long start = System.nanoTime();
            process = server.start(port, log);
            long acked = FirstAck.await("nats://127.0.0.1:" + port, expected, start + timeout.toNanos());
            r.millis = (acked - start) / 1e6;
            r.openMillis = server.storeOpenMillis(log);
            r.readBytes = server.openReadBytes(log);
            out.printf(Locale.ROOT, "    %-14s %-9s first PubAck (sequence %,d) after %,.0f ms%s%n", server.system(),
                    label, expected, r.millis, Double.isNaN(r.openMillis) ? ""
                            : String.format(Locale.ROOT, "; store opened in %,.0f ms by its own log", r.openMillis));
        } catch (IOException e) {
            r.failure = e.getMessage() + " (log " + log + ")";
        } finally {
            if (process != null) {
                kill(process);
            }
        }
        return r;
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly(); // SIGKILL
        process.waitFor(30, TimeUnit.SECONDS);
        ServerProcess.untrack(process);
    }

    /** What one start measured. */
    private static final class Restart {
        double millis = Double.NaN;
        double openMillis = Double.NaN;
        long readBytes = -1;
        String failure;
    }

    private StorageResults.RecoveryRow failed(RecoveryServer server, Scenario scenario, long storeBytes, long messages,
                                              String failure) {
        return progress(new StorageResults.RecoveryRow(server.system(), scenario.name().toLowerCase(Locale.ROOT),
                storeBytes, messages, payloadBytes, runs, dropCache ? "dropped" : "kept", Double.NaN, Double.NaN,
                Double.NaN, -1, server.filledBy(), null, failure));
    }

    private StorageResults.RecoveryRow progress(StorageResults.RecoveryRow r) {
        out.printf(Locale.ROOT, "  %-14s %-6s %,.0f MiB: %s%n", r.system(), r.scenario(), r.logBytes() / 1048576.0,
                r.failure() != null ? "FAILED: " + r.failure() : String.format(Locale.ROOT, "first PubAck after %,.0f ms"
                        + " (median of %d, slowest %,.0f ms)", r.firstAckMillis(), r.runs(), r.slowestMillis()));
        return r;
    }

    private static double max(double[] values) {
        double m = Double.NaN;
        for (double v : values) {
            m = Double.isNaN(m) ? v : Math.max(m, v);
        }
        return m;
    }
}
