package io.ringbus.bench.network;

import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The Go client's comparison (and cores sweep) as tables and JSON members. The ratio is a server's
 * figure over nats-server's for the same case and CPU placement in the same run: deliveries/s
 * for throughput (higher is better), p99 for latency (lower is better). Beside it the server
 * process's own CPU time per message over the measured runs, and that over nats-server's (below
 * 1.00 = less CPU).
 *
 * @param warmupRuns unmeasured runs per case
 * @param runs       measured runs per case
 * @param notes      lines about the run, e.g. core counts skipped
 * @param results    every result, in run order
 */
record GoReport(int warmupRuns, int runs, List<String> notes, List<GoResult> results) {
    /** Copies the lists. */
    GoReport {
        notes = List.copyOf(notes);
        results = List.copyOf(results);
    }

    /** @return whether every case verified */
    boolean passed() {
        return results.stream().allMatch(GoResult::passed);
    }

    private List<CorePlan> plans() {
        Set<CorePlan> plans = new LinkedHashSet<>();
        results.forEach(r -> plans.add(r.plan()));
        return new ArrayList<>(plans);
    }

    private List<GoCase> cases() {
        Set<GoCase> cases = new LinkedHashSet<>();
        results.forEach(r -> cases.add(r.c()));
        return new ArrayList<>(cases);
    }

    private List<ServerKind> servers() {
        Set<ServerKind> servers = new LinkedHashSet<>();
        results.forEach(r -> servers.add(r.server()));
        return new ArrayList<>(servers);
    }

    private GoResult find(CorePlan plan, GoCase c, ServerKind server) {
        for (GoResult r : results) {
            if (r.plan().equals(plan) && r.c().equals(c) && r.server() == server) {
                return r;
            }
        }
        return null;
    }

    /**
     * @param r a result
     * @return its headline over nats-server's in the same placement, null when there is none
     */
    Double ratio(GoResult r) {
        GoResult base = find(r.plan(), r.c(), ComparisonReport.BASELINE);
        if (base == null || !base.passed() || !r.passed()) {
            return null;
        }
        return r.headline() / base.headline();
    }

    /**
     * @param r a result
     * @return its CPU per message over nats-server's in the same placement, null when either is unknown
     */
    Double cpuRatio(GoResult r) {
        GoResult base = find(r.plan(), r.c(), ComparisonReport.BASELINE);
        if (base == null) {
            return null;
        }
        double ratio = r.cpuNanosPerMessage() / base.cpuNanosPerMessage();
        return Double.isFinite(ratio) ? ratio : null;
    }

    /** @return one row per placement, case and server */
    String table() {
        TextTable table = new TextTable("case", "server", "server cores", "M msg/s published", "M deliveries/s",
                "p50 us", "p99 us", "vs " + ComparisonReport.BASELINE.label(), "server cpu ns/msg",
                "cpu vs " + ComparisonReport.BASELINE.label());
        for (CorePlan plan : plans()) {
            for (GoCase c : cases()) {
                for (ServerKind server : servers()) {
                    GoResult r = find(plan, c, server);
                    if (r == null) {
                        continue;
                    }
                    String cores = plan.cores() == 0 ? "all" : plan.cores() + (plan.shared() ? " shared" : "");
                    if (!r.passed()) {
                        table.row(c.label(), server.label(), cores, "FAILED", "-", "-", "-", "-", "-", "-");
                        continue;
                    }
                    Double ratio = ratio(r);
                    String ratioText = ratio == null ? "-" : fmt("%.2f", ratio) + (c.latency() ? " (p99)" : "");
                    Double cpuRatio = cpuRatio(r);
                    String cpuText = Double.isNaN(r.cpuNanosPerMessage()) ? "-" : fmt("%,.0f", r.cpuNanosPerMessage());
                    String cpuRatioText = cpuRatio == null ? "-" : fmt("%.2f", cpuRatio);
                    if (c.latency()) {
                        table.row(c.label(), server.label(), cores, "-", "-", fmt("%.1f", r.median(GoResult::p50Micros)),
                                fmt("%.1f", r.median(GoResult::p99Micros)), ratioText, cpuText, cpuRatioText);
                    } else {
                        table.row(c.label(), server.label(), cores, fmt("%.2f", r.median(GoResult::publishedPerSecond) / 1e6),
                                fmt("%.2f", r.median(GoResult::deliveriesPerSecond) / 1e6), "-", "-", ratioText, cpuText,
                                cpuRatioText);
                    }
                }
            }
        }
        StringBuilder out = new StringBuilder(table.render());
        for (GoResult r : results) {
            if (!r.passed()) {
                out.append("FAILED ").append(r.server().label()).append(' ').append(r.c().label()).append(": ")
                        .append(r.failure()).append('\n');
            }
        }
        return out.toString();
    }

    /** @return one row per placement and server: its peak RSS over all the cases it ran */
    String memoryTable() {
        TextTable table = new TextTable("server", "server cores", "peak RSS MiB");
        for (CorePlan plan : plans()) {
            for (ServerKind server : servers()) {
                long peak = -1;
                for (GoResult r : results) {
                    if (r.plan().equals(plan) && r.server() == server) {
                        peak = Math.max(peak, r.peakRssKiB());
                    }
                }
                table.row(server.label(), plan.cores() == 0 ? "all" : Integer.toString(plan.cores()),
                        peak < 0 ? "-" : fmt("%.1f", peak / 1024.0));
            }
        }
        return table.render();
    }

    /** @return the cores sweep: M deliveries/s per case and server against the server's cores; empty when one placement */
    String sweepTable() {
        List<CorePlan> plans = plans();
        if (plans.size() < 2) {
            return "";
        }
        List<String> header = new ArrayList<>(List.of("case", "server"));
        for (CorePlan plan : plans) {
            header.add(plan.cores() + (plan.cores() == 1 ? " core" : " cores") + (plan.shared() ? "*" : ""));
        }
        TextTable table = new TextTable(header.toArray(String[]::new));
        for (GoCase c : cases()) {
            if (c.latency()) {
                continue;
            }
            for (ServerKind server : servers()) {
                List<String> row = new ArrayList<>(List.of(c.label(), server.label()));
                for (CorePlan plan : plans) {
                    GoResult r = find(plan, c, server);
                    row.add(r == null || !r.passed() ? "FAILED" : fmt("%.2f", r.median(GoResult::deliveriesPerSecond) / 1e6));
                }
                table.row(row.toArray(String[]::new));
            }
        }
        String legend = "M deliveries/s against the server's CPUs (taskset); natsload on the other CPUs";
        if (plans.stream().anyMatch(CorePlan::shared)) {
            legend += "; * = no CPU left for natsload, it shared the server's";
        }
        return legend + "\n" + table.render();
    }

    /** @return the report as the {@code goComparison} part of the results document */
    NetworkResults.Go section() {
        List<NetworkResults.GoRow> rows = new ArrayList<>();
        for (GoResult r : results) {
            rows.add(new NetworkResults.GoRow(r.server().label(), r.plan().cores(), r.plan().serverCpus(),
                    r.plan().loadCpus(), r.plan().shared(), r.c().id(), r.c().label(), r.c().latency(), r.passed(),
                    r.failure(), r.peakRssKiB() < 0 ? Double.NaN : r.peakRssKiB() / 1024.0,
                    r.median(GoResult::publishedPerSecond), r.median(GoResult::deliveriesPerSecond),
                    r.median(GoResult::p50Micros), r.median(GoResult::p99Micros), ratio(r),
                    r.serverCpuNanos() < 0 ? Double.NaN : r.serverCpuNanos() / 1e6, r.cpuNanosPerMessage(), cpuRatio(r),
                    r.runs()));
        }
        return new NetworkResults.Go("nats.go (natsload)", warmupRuns, runs, ComparisonReport.BASELINE.label(), notes,
                rows);
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }
}
