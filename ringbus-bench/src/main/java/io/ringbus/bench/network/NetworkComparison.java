package io.ringbus.bench.network;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The comparison part of the {@code network} scenario: each server in turn runs alone as its own
 * process on a free loopback port; every case runs against it (warm-up runs, then measured runs,
 * each with fresh jnats connections and a fresh subject); then its peak RSS is read and it is
 * stopped. The same {@link JnatsWorkload} drives every server. The server's own CPU time is read
 * around each measured run (the warm-up runs are not counted).
 */
public final class NetworkComparison {
    private final ServerBinaries binaries;
    private final JnatsWorkload workload;
    private final int warmupRuns;
    private final int runs;
    private final String ringbusHeap;
    private final List<String> ringbusJvmArgs;
    private final Path ringbusConfig;
    private final Path workDir;
    private final PrintStream progress;
    private final ServerCpu cpu;

    /**
     * @param binaries       where the servers are
     * @param workload       the jnats workload
     * @param warmupRuns     unmeasured runs per case and server, &gt;= 0
     * @param runs           measured runs per case and server, &gt;= 1
     * @param ringbusHeap    ringbus-server's {@code -Xmx}, e.g. {@code 1g}
     * @param ringbusJvmArgs extra JVM options for ringbus-server
     * @param ringbusConfig  ringbus-server's {@code --config} file, or {@code null}
     * @param workDir        where the servers' logs go
     * @param progress       where to print one line per run
     * @param cpu            reads the server's CPU time
     * @throws IllegalArgumentException naming a run count out of range
     */
    NetworkComparison(ServerBinaries binaries, JnatsWorkload workload, int warmupRuns, int runs, String ringbusHeap,
                      List<String> ringbusJvmArgs, Path ringbusConfig, Path workDir, PrintStream progress,
                      ServerCpu cpu) {
        if (warmupRuns < 0) {
            throw new IllegalArgumentException("warmup must be >= 0: warmup=" + warmupRuns);
        }
        if (runs < 1) {
            throw new IllegalArgumentException("runs must be >= 1: runs=" + runs);
        }
        this.binaries = binaries;
        this.workload = workload;
        this.warmupRuns = warmupRuns;
        this.runs = runs;
        this.ringbusHeap = ringbusHeap;
        this.ringbusJvmArgs = List.copyOf(ringbusJvmArgs);
        this.ringbusConfig = ringbusConfig;
        this.workDir = workDir;
        this.progress = progress;
        this.cpu = cpu;
    }

    /**
     * Runs every case on every server, servers one after the other.
     *
     * @param servers the servers, in run order
     * @param cases   the cases, in run order
     * @return one result per server; a case that failed its checks is recorded as failed
     *         ({@link CaseResult#failure()}) and the run goes on with the next case
     * @throws Exception when a server cannot be started
     */
    public List<ServerRun> run(List<ServerKind> servers, List<NetworkCase> cases) throws Exception {
        List<ServerRun> results = new ArrayList<>();
        for (ServerKind kind : servers) {
            int port = EphemeralPorts.pick();
            List<String> command = kind.command(binaries, port, ringbusHeap, ringbusJvmArgs,
                    kind == ServerKind.RINGBUS ? ringbusConfig : null);
            List<CaseResult> caseResults = new ArrayList<>();
            long peakRss;
            Map<String, Long> stats;
            try (ServerProcess server = ServerProcess.start(kind, command, port, workDir, progress)) {
                for (NetworkCase c : cases) {
                    caseResults.add(runCase(server, kind, c));
                }
                peakRss = server.peakRssKiB();
                server.stop();
                stats = StatsText.parseLast(server.log(), "ServerStats");
            }
            results.add(new ServerRun(kind, command, peakRss, stats, caseResults));
        }
        return results;
    }

    private CaseResult runCase(ServerProcess server, ServerKind kind, NetworkCase c) throws Exception {
        List<RunOutcome> measured = new ArrayList<>();
        long cpuNanos = 0;
        for (int i = 0; i < warmupRuns + runs; i++) {
            settle();
            String subject = "bench." + c.publishers() + "x" + c.subscribers() + "x" + c.payloadBytes() + ".r" + i;
            RunOutcome outcome;
            long before = cpu.ticks(server.pid());
            try {
                outcome = workload.run(server.url(), c, subject);
            } catch (NetworkVerificationException | IOException e) {
                // Recorded, and the next case runs: one failing case must not hide the others' numbers.
                String failure = (e instanceof IOException ? "I/O: " : "") + e.getMessage();
                progress.printf(Locale.ROOT, "  %-15s %-10s FAILED: %s%n    %s log, last lines:%n%s%n", kind.label(),
                        c.label(), failure, kind.label(), server.logTail(5).indent(6).stripTrailing());
                return new CaseResult(kind, c, measured, failure, -1);
            }
            long nanos = cpu.nanos(before, cpu.ticks(server.pid()));
            boolean isMeasured = i >= warmupRuns;
            if (isMeasured) {
                measured.add(outcome);
                cpuNanos = cpuNanos < 0 || nanos < 0 ? -1 : cpuNanos + nanos;
            }
            progress.printf(Locale.ROOT, "  %-15s %-10s %-7s %d/%d %9.1f ms %7.2f M msg/s published %7.2f M deliveries/s"
                            + "  server cpu %,6.0f ns/delivery%n",
                    kind.label(), c.label(), isMeasured ? "run" : "warm-up",
                    isMeasured ? i - warmupRuns + 1 : i + 1, isMeasured ? runs : warmupRuns,
                    outcome.deliverNanos() / 1e6, outcome.publishedPerSecond() / 1e6,
                    outcome.deliveriesPerSecond() / 1e6, ServerCpu.nanosPer(nanos, Math.max(outcome.deliveries(),
                            outcome.messages())));
        }
        return new CaseResult(kind, c, measured, null, cpuNanos);
    }

    /** Lets the previous run's garbage go and its connections close, outside the timed section. */
    private static void settle() throws InterruptedException {
        System.gc();
        Thread.sleep(100);
    }
}
