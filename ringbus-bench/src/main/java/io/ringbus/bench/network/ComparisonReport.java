package io.ringbus.bench.network;

import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The comparison's results as tables and as JSON members. The ratio column is a server's median
 * deliveries per second divided by nats-server's on the same case (1.00 = as fast; absent when
 * nats-server did not run). Beside it the server process's own CPU time per delivery over the
 * measured runs, and that over nats-server's (below 1.00 = less CPU).
 *
 * @param warmupRuns unmeasured runs per case and server
 * @param runs       measured runs per case and server
 * @param servers    one per server, in run order
 */
public record ComparisonReport(int warmupRuns, int runs, List<ServerRun> servers) {
    /** The server the ratios divide by. */
    public static final ServerKind BASELINE = ServerKind.NATS;

    /** @return the throughput table: one row per case and server, cases grouped */
    public String table() {
        TextTable table = new TextTable("case", "server", "messages", "median ms", "min ms", "max ms",
                "M msg/s published", "M deliveries/s", "vs " + BASELINE.label(), "server cpu ns/delivery",
                "cpu vs " + BASELINE.label());
        if (servers.isEmpty()) {
            return table.render();
        }
        for (int i = 0; i < servers.getFirst().cases().size(); i++) {
            for (ServerRun server : servers) {
                CaseResult r = server.cases().get(i);
                if (!r.passed()) {
                    table.row(r.c().label(), server.server().label(), String.format(Locale.ROOT, "%,d", r.c().messages()),
                            "FAILED", "-", "-", "-", "-", "-", "-", "-");
                    continue;
                }
                Double ratio = ratio(r);
                Double cpuRatio = cpuRatio(r);
                table.row(r.c().label(), server.server().label(), String.format(Locale.ROOT, "%,d", r.c().messages()),
                        fmt("%.1f", r.medianMillis()), fmt("%.1f", r.minMillis()), fmt("%.1f", r.maxMillis()),
                        fmt("%.2f", r.medianPublishedPerSecond() / 1e6), fmt("%.2f", r.medianDeliveriesPerSecond() / 1e6),
                        ratio == null ? "-" : fmt("%.2f", ratio), fmt("%,.0f", r.cpuNanosPerDelivery()),
                        cpuRatio == null ? "-" : fmt("%.2f", cpuRatio));
            }
        }
        StringBuilder out = new StringBuilder(table.render());
        for (ServerRun server : servers) {
            for (CaseResult r : server.cases()) {
                if (!r.passed()) {
                    out.append("FAILED ").append(server.server().label()).append(' ').append(r.c().label()).append(": ")
                            .append(r.failure()).append('\n');
                }
            }
        }
        return out.toString();
    }

    /** @return whether every case on every server verified */
    public boolean passed() {
        return servers.stream().allMatch(s -> s.cases().stream().allMatch(CaseResult::passed));
    }

    /** @return one row per server: peak RSS, and the counters ringbus-server printed when stopped */
    public String memoryTable() {
        TextTable table = new TextTable("server", "peak RSS MiB", "messages in", "messages out", "publish pauses",
                "slow consumers");
        for (ServerRun server : servers) {
            Map<String, Long> s = server.stats();
            table.row(server.server().label(), fmt("%.1f", server.peakRssMiB()), stat(s, "messagesIn"),
                    stat(s, "messagesOut"), stat(s, "publishPauses"), stat(s, "slowConsumers"));
        }
        return table.render();
    }

    /** @return the comparison as the {@code comparison} part of the results document */
    public NetworkResults.Comparison section() {
        List<NetworkResults.ComparisonServer> rows = new ArrayList<>();
        for (ServerRun server : servers) {
            List<NetworkResults.CaseRow> cases = new ArrayList<>();
            for (CaseResult r : server.cases()) {
                List<NetworkResults.Run> runRows = new ArrayList<>();
                for (RunOutcome o : r.runs()) {
                    runRows.add(new NetworkResults.Run(o.publishNanos() / 1e6, o.deliverNanos() / 1e6));
                }
                cases.add(new NetworkResults.CaseRow(r.c().label(), r.c().publishers(), r.c().subscribers(),
                        r.c().payloadBytes(), r.c().messages(), r.c().deliveries(), r.passed(), r.failure(),
                        r.medianMillis(), r.minMillis(), r.maxMillis(), r.medianPublishedPerSecond(),
                        r.medianDeliveriesPerSecond(), ratio(r), r.serverCpuNanos() < 0 ? Double.NaN
                        : r.serverCpuNanos() / 1e6, r.cpuNanosPerDelivery(), cpuRatio(r), runRows));
            }
            rows.add(new NetworkResults.ComparisonServer(server.server().label(), String.join(" ", server.command()),
                    server.peakRssMiB(), new LinkedHashMap<>(server.stats()), cases));
        }
        return new NetworkResults.Comparison(warmupRuns, runs, BASELINE.label(), rows);
    }

    private Double ratio(CaseResult r) {
        for (ServerRun server : servers) {
            if (server.server() == BASELINE) {
                for (CaseResult b : server.cases()) {
                    if (b.c().equals(r.c()) && b.passed()) {
                        return r.medianDeliveriesPerSecond() / b.medianDeliveriesPerSecond();
                    }
                }
            }
        }
        return null;
    }

    /** @return the server's CPU per delivery over nats-server's on the same case, null when either is unknown */
    private Double cpuRatio(CaseResult r) {
        for (ServerRun server : servers) {
            if (server.server() == BASELINE) {
                for (CaseResult b : server.cases()) {
                    if (b.c().equals(r.c())) {
                        double ratio = r.cpuNanosPerDelivery() / b.cpuNanosPerDelivery();
                        return Double.isFinite(ratio) ? ratio : null;
                    }
                }
            }
        }
        return null;
    }

    private static String stat(Map<String, Long> stats, String name) {
        Long value = stats.get(name);
        return value == null ? "-" : String.format(Locale.ROOT, "%,d", value);
    }

    private static String fmt(String format, double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
    }
}
