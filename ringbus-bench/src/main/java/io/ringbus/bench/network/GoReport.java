package io.ringbus.bench.network;

import io.ringbus.bench.JsonWriter;
import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The Go client's comparison (and cores sweep) as tables and JSON members. The ratio is a server's
 * figure over nats-server's for the same case and CPU placement in the same run: deliveries/s
 * for throughput (higher is better), p99 for latency (lower is better).
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

    /** @return one row per placement, case and server */
    String table() {
        TextTable table = new TextTable("case", "server", "server cores", "M msg/s published", "M deliveries/s",
                "p50 us", "p99 us", "vs " + ComparisonReport.BASELINE.label());
        for (CorePlan plan : plans()) {
            for (GoCase c : cases()) {
                for (ServerKind server : servers()) {
                    GoResult r = find(plan, c, server);
                    if (r == null) {
                        continue;
                    }
                    String cores = plan.cores() == 0 ? "all" : plan.cores() + (plan.shared() ? " shared" : "");
                    if (!r.passed()) {
                        table.row(c.label(), server.label(), cores, "FAILED", "-", "-", "-", "-");
                        continue;
                    }
                    Double ratio = ratio(r);
                    String ratioText = ratio == null ? "-" : fmt("%.2f", ratio) + (c.latency() ? " (p99)" : "");
                    if (c.latency()) {
                        table.row(c.label(), server.label(), cores, "-", "-", fmt("%.1f", r.median("p50Micros")),
                                fmt("%.1f", r.median("p99Micros")), ratioText);
                    } else {
                        table.row(c.label(), server.label(), cores, fmt("%.2f", r.median("publishedPerSecond") / 1e6),
                                fmt("%.2f", r.median("deliveriesPerSecond") / 1e6), "-", "-", ratioText);
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
                    row.add(r == null || !r.passed() ? "FAILED" : fmt("%.2f", r.median("deliveriesPerSecond") / 1e6));
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

    /**
     * Writes the report as members of the current JSON object.
     *
     * @param json a writer positioned inside an object
     */
    void writeMembers(JsonWriter json) {
        json.name("client").value("nats.go (natsload)");
        json.name("warmupRuns").value(warmupRuns);
        json.name("runs").value(runs);
        json.name("baseline").value(ComparisonReport.BASELINE.label());
        json.name("notes").beginArray();
        notes.forEach(json::value);
        json.endArray();
        json.name("results").beginArray();
        for (GoResult r : results) {
            json.beginObject()
                    .name("server").value(r.server().label())
                    .name("cores").value(r.plan().cores())
                    .name("serverCpus").value(r.plan().serverCpus())
                    .name("loadCpus").value(r.plan().loadCpus())
                    .name("sharedCpus").value(r.plan().shared())
                    .name("id").value(r.c().id())
                    .name("case").value(r.c().label())
                    .name("latency").value(r.c().latency())
                    .name("verified").value(r.passed())
                    .name("failure").value(r.failure())
                    .name("peakRssMiB").value(r.peakRssKiB() < 0 ? Double.NaN : r.peakRssKiB() / 1024.0);
            for (String member : List.of("publishedPerSecond", "deliveriesPerSecond", "p50Micros", "p99Micros")) {
                json.name("median" + Character.toUpperCase(member.charAt(0)) + member.substring(1)).value(r.median(member));
            }
            Double ratio = ratio(r);
            json.name("ratioToBaseline");
            if (ratio == null) {
                json.nullValue();
            } else {
                json.value(ratio);
            }
            json.name("runs").beginArray();
            for (Map<?, ?> run : r.runs()) {
                json.beginObject();
                for (Map.Entry<?, ?> e : run.entrySet()) {
                    json.name(String.valueOf(e.getKey()));
                    Object v = e.getValue();
                    if (v instanceof Double d) {
                        json.value(d);
                    } else if (v instanceof Boolean b) {
                        json.value(b);
                    } else if (v == null) {
                        json.nullValue();
                    } else {
                        json.value(String.valueOf(v));
                    }
                }
                json.endObject();
            }
            json.endArray().endObject();
        }
        json.endArray();
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }
}
