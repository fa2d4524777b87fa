package io.ringbus.bench.network;

import io.ringbus.bench.Median;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One transport of the {@code tls} scenario: every server started at once (TLS with the same
 * certificate, or plaintext), then each case's runs made against them in turn, the servers'
 * order alternating from run to run, so that a busy moment of a shared machine weighs on both
 * alike. Every run is a fresh natsload process with fresh connections and subject. Each server's own
 * CPU time is read around each of its measured runs (the other server idles meanwhile).
 */
final class TlsComparison {
    private static final Pattern PROVIDER = Pattern.compile("TLS provider: (.+)");

    private final ServerBinaries binaries;
    private final NatsLoad load;
    private final ThrowawayCertificates certificates;
    private final String provider;
    private final String ringbusHeap;
    private final int warmupRuns;
    private final int runs;
    private final Duration timeout;
    private final Path workDir;
    private final PrintStream progress;
    private final ServerCpu cpu;
    private String ringbusProvider;

    /**
     * @param binaries     the servers
     * @param load         natsload
     * @param certificates what the servers serve and natsload trusts
     * @param provider     ringbus-server's {@code tls.provider}
     * @param ringbusHeap  ringbus-server's {@code -Xmx}
     * @param warmupRuns   unmeasured runs per case and server, &gt;= 0
     * @param runs         measured runs per case and server, &gt;= 1
     * @param timeout      longest one natsload run may take
     * @param workDir      where configuration files and logs go
     * @param progress     one line per run
     * @param cpu          reads the servers' CPU time
     */
    TlsComparison(ServerBinaries binaries, NatsLoad load, ThrowawayCertificates certificates, String provider,
                  String ringbusHeap, int warmupRuns, int runs, Duration timeout, Path workDir, PrintStream progress,
                  ServerCpu cpu) {
        if (warmupRuns < 0 || runs < 1) {
            throw new IllegalArgumentException("warmup must be >= 0 and runs >= 1: warmup=" + warmupRuns + ", runs=" + runs);
        }
        this.binaries = binaries;
        this.load = load;
        this.certificates = certificates;
        this.provider = provider;
        this.ringbusHeap = ringbusHeap;
        this.warmupRuns = warmupRuns;
        this.runs = runs;
        this.timeout = timeout;
        this.workDir = workDir;
        this.progress = progress;
        this.cpu = cpu;
    }

    /** @return the TLS provider ringbus-server logged in the last TLS run, or {@code null} */
    String ringbusProvider() {
        return ringbusProvider;
    }

    /**
     * @param servers the servers
     * @param tls     over TLS, or in plaintext
     * @param cases   the cases, in run order
     * @return one row per case and server, ratios NaN
     * @throws IOException when a server cannot be started
     */
    List<TlsResults.Row> run(List<ServerKind> servers, boolean tls, List<TlsCase> cases)
            throws IOException, InterruptedException {
        String transport = tls ? TlsReport.TLS : TlsReport.PLAIN;
        Map<ServerKind, ServerProcess> started = new LinkedHashMap<>();
        try {
            for (ServerKind kind : servers) {
                int port = EphemeralPorts.pick();
                Path config = tls ? certificates.serverConfig(kind, provider, workDir) : null;
                List<String> command = kind.command(binaries, port, ringbusHeap, List.of(), config);
                started.put(kind, ServerProcess.start(kind, command, port, workDir, progress));
            }
            List<TlsResults.Row> rows = new ArrayList<>();
            int serial = 0;
            for (TlsCase c : cases) {
                Map<ServerKind, List<Double>> figures = new LinkedHashMap<>();
                Map<ServerKind, String> failures = new LinkedHashMap<>();
                // per server: CPU nanoseconds (-1 once unknown) and operations over the measured runs
                Map<ServerKind, long[]> cpuTally = new LinkedHashMap<>();
                for (ServerKind kind : servers) {
                    figures.put(kind, new ArrayList<>());
                    cpuTally.put(kind, new long[2]);
                }
                for (int i = 0; i < warmupRuns + runs; i++) {
                    List<ServerKind> order = new ArrayList<>(servers);
                    if (i % 2 == 1) {
                        order = order.reversed();
                    }
                    for (ServerKind kind : order) {
                        if (failures.containsKey(kind)) {
                            continue;
                        }
                        String subject = "tls." + transport + "." + serial++;
                        String failure = runOnce(started.get(kind), kind, tls, c, i, subject, figures.get(kind),
                                cpuTally.get(kind));
                        if (failure != null) {
                            failures.put(kind, failure);
                        }
                    }
                }
                for (ServerKind kind : servers) {
                    String failure = failures.get(kind);
                    List<Double> measured = figures.get(kind);
                    double median = failure != null ? Double.NaN
                            : Median.of(measured.stream().mapToDouble(Double::doubleValue).toArray());
                    long[] tally = cpuTally.get(kind);
                    double cpuPerOp = failure != null ? Double.NaN : ServerCpu.nanosPer(tally[0], tally[1]);
                    rows.add(new TlsResults.Row(transport, c.id(), c.label(), c.unit(), kind.label(), measured, median,
                            Double.NaN, cpuPerOp, Double.NaN, failure));
                }
            }
            ServerProcess ringbus = started.get(ServerKind.RINGBUS);
            if (tls && ringbus != null) {
                Matcher m = PROVIDER.matcher(ringbus.log());
                ringbusProvider = m.find() ? m.group(1).strip() : "unknown (no 'TLS provider' line in its log)";
            }
            return rows;
        } finally {
            for (ServerProcess server : started.values()) {
                server.stop();
                server.close();
            }
        }
    }

    /**
     * @param cpuTally the server's CPU nanoseconds (-1 once unknown) and operations so far, added to when measured
     * @return {@code null} after a verified run (its figure added when measured), else why it failed
     */
    private String runOnce(ServerProcess server, ServerKind kind, boolean tls, TlsCase c, int i, String subject,
                           List<Double> measured, long[] cpuTally) throws InterruptedException {
        List<String> args = new ArrayList<>(List.of("-url", server.url(), "-subject", subject,
                "-timeout", timeout.toSeconds() + "s"));
        if (tls) {
            args.addAll(List.of("-tls-ca", certificates.ca().toString()));
        }
        args.addAll(c.args());
        Path log = workDir.resolve("natsload-" + kind.label() + "-" + (tls ? "tls" : "plain") + ".log");
        String failure;
        NatsLoadResult result = null;
        long nanos = -1;
        try {
            long before = cpu.ticks(server.pid());
            result = load.run(NatsLoadResult.class, null, args, timeout.plusSeconds(30), log);
            nanos = cpu.nanos(before, cpu.ticks(server.pid()));
            failure = TlsCase.verdict(result);
        } catch (IOException e) {
            failure = e.getMessage();
        }
        String transport = tls ? "TLS" : "plain";
        if (failure != null) {
            progress.printf(Locale.ROOT, "  %-5s %-15s %-22s FAILED: %s%n    %s log, last lines:%n%s%n", transport,
                    kind.label(), c.label(), failure, kind.label(), server.logTail(5).indent(6).stripTrailing());
            return failure;
        }
        boolean isMeasured = i >= warmupRuns;
        double figure = c.figure(result);
        long operations = c.operations(result);
        if (isMeasured) {
            measured.add(figure);
            cpuTally[0] = cpuTally[0] < 0 || nanos < 0 ? -1 : cpuTally[0] + nanos;
            cpuTally[1] += operations;
        }
        progress.printf(Locale.ROOT, "  %-5s %-15s %-22s %-7s %d/%d %,12.0f %s  server cpu %,8.0f ns/op%n", transport,
                kind.label(), c.label(), isMeasured ? "run" : "warm-up", isMeasured ? i - warmupRuns + 1 : i + 1,
                isMeasured ? runs : warmupRuns, figure, c.unit(), ServerCpu.nanosPer(nanos, operations));
        return null;
    }
}
