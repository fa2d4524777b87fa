package io.ringbus.bench.network;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The Go client's comparison: for each CPU placement, each server in turn runs alone (pinned with
 * {@code taskset} when the placement says so) and natsload runs every case against it, warm-up
 * runs first, each run a fresh natsload process with fresh connections and subject. The server's
 * own CPU time is read around each measured natsload process (the warm-up runs are not counted).
 */
final class GoComparison {
    private final ServerBinaries binaries;
    private final NatsLoad load;
    private final int warmupRuns;
    private final int runs;
    private final String ringbusHeap;
    private final List<String> ringbusJvmArgs;
    private final Duration timeout;
    private final Path workDir;
    private final PrintStream progress;
    private final ServerCpu cpu;

    /**
     * @param binaries       the servers
     * @param load           natsload
     * @param warmupRuns     unmeasured runs per case, &gt;= 0
     * @param runs           measured runs per case, &gt;= 1
     * @param ringbusHeap    ringbus-server's {@code -Xmx}
     * @param ringbusJvmArgs extra JVM options for ringbus-server
     * @param timeout        longest one run may take
     * @param workDir        where logs go
     * @param progress       one line per run
     * @param cpu            reads the server's CPU time
     */
    GoComparison(ServerBinaries binaries, NatsLoad load, int warmupRuns, int runs, String ringbusHeap,
                 List<String> ringbusJvmArgs, Duration timeout, Path workDir, PrintStream progress,
                 ServerCpu cpu) {
        if (warmupRuns < 0 || runs < 1) {
            throw new IllegalArgumentException("warmup must be >= 0 and runs >= 1: warmup=" + warmupRuns + ", runs=" + runs);
        }
        this.binaries = binaries;
        this.load = load;
        this.warmupRuns = warmupRuns;
        this.runs = runs;
        this.ringbusHeap = ringbusHeap;
        this.ringbusJvmArgs = List.copyOf(ringbusJvmArgs);
        this.timeout = timeout;
        this.workDir = workDir;
        this.progress = progress;
        this.cpu = cpu;
    }

    /**
     * @param servers the servers, in run order
     * @param plans   the CPU placements, in run order
     * @param cases   the cases, in run order
     * @return one result per placement, server and case, in that nesting order
     * @throws IOException when a server cannot be started
     */
    List<GoResult> run(List<ServerKind> servers, List<CorePlan> plans, List<GoCase> cases)
            throws IOException, InterruptedException {
        List<GoResult> results = new ArrayList<>();
        int serial = 0;
        for (CorePlan plan : plans) {
            progress.println("  placement: " + plan.describe());
            for (ServerKind kind : servers) {
                int port = EphemeralPorts.pick();
                List<String> command = plan.pinServer(kind.command(binaries, port, ringbusHeap, ringbusJvmArgs, null));
                Path loadLog = workDir.resolve("natsload-" + kind.label() + "-" + port + ".log");
                List<GoResult> serverResults = new ArrayList<>();
                try (ServerProcess server = ServerProcess.start(kind, command, port, workDir, progress)) {
                    for (GoCase c : cases) {
                        serverResults.add(runCase(server, kind, plan, c, serial++, loadLog));
                    }
                    long peak = server.peakRssKiB();
                    for (GoResult r : serverResults) {
                        results.add(new GoResult(r.server(), r.plan(), r.c(), r.runs(), r.failure(),
                                r.serverCpuNanos(), peak));
                    }
                    server.stop();
                }
            }
        }
        return results;
    }

    private GoResult runCase(ServerProcess server, ServerKind kind, CorePlan plan, GoCase c, int serial, Path loadLog)
            throws InterruptedException {
        List<NatsLoadResult> measured = new ArrayList<>();
        long cpuNanos = 0;
        for (int i = 0; i < warmupRuns + runs; i++) {
            List<String> args = new ArrayList<>(List.of("-url", server.url(), "-subject",
                    "go." + serial + "." + c.id() + ".r" + i, "-timeout", timeout.toSeconds() + "s"));
            args.addAll(c.args());
            String failure;
            NatsLoadResult result = null;
            long nanos = -1;
            try {
                long before = cpu.ticks(server.pid());
                result = load.run(NatsLoadResult.class, plan.loadCpus(), args, timeout.plusSeconds(30), loadLog);
                nanos = cpu.nanos(before, cpu.ticks(server.pid()));
                failure = verdict(result);
            } catch (IOException e) {
                failure = e.getMessage();
            }
            if (failure != null) {
                progress.printf(Locale.ROOT, "  %-15s %-22s FAILED: %s%n    %s log, last lines:%n%s%n", kind.label(),
                        c.label(), failure, kind.label(), server.logTail(5).indent(6).stripTrailing());
                return new GoResult(kind, plan, c, measured, failure, -1, -1);
            }
            boolean isMeasured = i >= warmupRuns;
            if (isMeasured) {
                measured.add(result);
                cpuNanos = cpuNanos < 0 || nanos < 0 ? -1 : cpuNanos + nanos;
            }
            String figure = c.latency()
                    ? String.format(Locale.ROOT, "p50 %8.1f us  p99 %8.1f us", GoResult.p50Micros(result),
                    GoResult.p99Micros(result))
                    : String.format(Locale.ROOT, "%7.2f M msg/s published %7.2f M deliveries/s",
                    GoResult.publishedPerSecond(result) / 1e6, GoResult.deliveriesPerSecond(result) / 1e6);
            progress.printf(Locale.ROOT, "  %-15s %-22s %-7s %d/%d %s  server cpu %,6.0f ns/msg%n", kind.label(),
                    c.label(), isMeasured ? "run" : "warm-up", isMeasured ? i - warmupRuns + 1 : i + 1,
                    isMeasured ? runs : warmupRuns, figure, ServerCpu.nanosPer(nanos, GoResult.messagesOf(result)));
        }
        return new GoResult(kind, plan, c, measured, null, cpuNanos, -1);
    }

    /** @return {@code null} when the run verified, else natsload's failure */
    private static String verdict(NatsLoadResult result) {
        return switch (result) {
            case NatsLoadResult.Throughput t -> t.verified() ? null : String.valueOf(t.failure());
            case NatsLoadResult.Latency l -> l.verified() ? null : String.valueOf(l.failure());
            default -> "natsload printed a " + result.mode() + " result, not a throughput or latency one";
        };
    }
}
