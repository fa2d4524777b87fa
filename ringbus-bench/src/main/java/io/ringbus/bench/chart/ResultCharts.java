package io.ringbus.bench.chart;

import io.ringbus.bench.JsonReader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Draws a results file of the scenario runner as a bar chart. The chart is made from the JSON,
 * never from the in-memory results, so that {@code chart FILE} on a committed result draws exactly
 * what the run drew. Knows the {@code seed}, {@code blocking}, {@code network} (comparison and
 * overload) and {@code outbox} documents, and JMH's own JSON array ({@code jmh -rf json}).
 */
public final class ResultCharts {
    private ResultCharts() {
    }

    /**
     * Reads a results file and writes its chart beside it, {@code x.json} to {@code x.svg}.
     *
     * @param json a results file written by a subcommand's {@code --json}, or by JMH
     * @return the chart's path
     * @throws IOException when a file cannot be read or written
     * @throws IllegalArgumentException when the file is not JSON or not a result this class knows
     */
    public static Path writeBeside(Path json) throws IOException {
        Object doc;
        try {
            doc = JsonReader.parse(Files.readString(json, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ", file=" + json, e);
        }
        Path svg = svgPathFor(json);
        Files.writeString(svg, chart(doc).render(), StandardCharsets.UTF_8);
        return svg;
    }

    /**
     * @param json a results file
     * @return the same path with {@code .svg} for a trailing {@code .json}, or {@code .svg} appended
     */
    public static Path svgPathFor(Path json) {
        String name = json.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
        return json.resolveSibling(base + ".svg");
    }

    /**
     * @param doc a parsed results document
     * @return its chart
     * @throws IllegalArgumentException when the document is no result this class knows
     */
    public static SvgBarChart chart(Object doc) {
        if (doc instanceof List<?> list) {
            return jmh(list);
        }
        if (!(doc instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException("not a ringbus-bench result: top-level value=" + doc);
        }
        Object scenario = map.get("scenario");
        SvgBarChart chart = switch (String.valueOf(scenario)) {
            case "seed" -> seed(map);
            case "blocking" -> blocking(map);
            case "network" -> network(map);
            case "outbox" -> outbox(map);
            case "subs" -> subs(map);
            case "soak" -> soak(map);
            default -> throw new IllegalArgumentException(
                    "not a ringbus-bench result (seed, blocking, network, subs, soak or outbox): scenario=" + scenario);
        };
        if (chart.isEmpty()) {
            throw new IllegalArgumentException("the result has no rows to draw: scenario=" + scenario);
        }
        return chart;
    }

    private static SvgBarChart seed(Map<?, ?> doc) {
        Map<?, ?> w = map(doc, "workload");
        SvgBarChart chart = new SvgBarChart("ringbus seed scenario: dispatch throughput", List.of(
                String.format(Locale.ROOT, "%.0f producers x %,.0f events over %.0f subjects x %.0f subscribers;"
                                + " wait strategy %s; median of %.0f rounds", num(w, "producers"),
                        num(w, "eventsPerProducer"), num(w, "subjects"), num(w, "subscribersPerSubject"),
                        str(doc, "waitStrategy"), num(doc, "rounds")),
                jvm(doc)));
        String baseline = str(doc, "baseline");
        SvgBarChart.Panel panel = chart.panel("million dispatches per second (higher is better)", "M dispatches/s");
        double baselineValue = Double.NaN;
        for (Object o : list(doc, "contenders")) {
            Map<?, ?> c = (Map<?, ?>) o;
            double value = num(c, "millionDispatchesPerSecond");
            panel.row(str(c, "name"), value);
            Object ratio = c.get("ratioToBaseline");
            if (ratio instanceof Double r) {
                panel.note(String.format(Locale.ROOT, "%.2fx %s", r, baseline));
            }
            if (str(c, "name").equals(baseline)) {
                baselineValue = value;
            }
        }
        panel.reference(baseline + " = 1x", baselineValue).ratioAxis();
        return chart;
    }

    private static SvgBarChart blocking(Map<?, ?> doc) {
        Map<?, ?> steady = map(doc, "steady");
        SvgBarChart chart = new SvgBarChart("ringbus blocking handlers per execution mode", List.of(jvm(doc)));
        List<?> results = list(steady, "results");
        if (!results.isEmpty()) {
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "steady sender (seed 001): messages received per minute, handler blocks %.0f ms, one send every %.0f ms",
                    num(steady, "blockMs"), num(steady, "sendIntervalMs")), "received/min");
            double scheduled = Double.NaN;
            for (Object o : results) {
                Map<?, ?> r = (Map<?, ?>) o;
                panel.row(str(r, "receiver"), num(r, "receivedPerMinute"));
                if (Boolean.TRUE.equals(r.get("senderSlowed"))) {
                    panel.note("sender slowed by backpressure");
                }
                scheduled = num(r, "scheduledPerMinute");
            }
            panel.reference("sender's schedule = 1x", scheduled).ratioAxis();
        }
        List<?> burst = list(doc, "burst");
        if (!burst.isEmpty()) {
            SvgBarChart.Panel panel = chart.panel("burst (seeds 002/004): efficiency = ideal time / measured time"
                    + " (1 = ideal)", "efficiency");
            for (Object o : burst) {
                Map<?, ?> r = (Map<?, ?>) o;
                panel.row(str(r, "handler") + ", blocks " + millis(num(r, "latencyMs")), num(r, "efficiency"));
                panel.note(String.format(Locale.ROOT, "%,.0f ms for %,.0f messages", num(r, "timeMs"), num(r, "messages")));
            }
            panel.reference("ideal", 1.0);
        }
        return chart;
    }

    private static SvgBarChart network(Map<?, ?> doc) {
        SvgBarChart chart = new SvgBarChart("ringbus-server vs nats-server over TCP (" + str(doc, "client") + " clients)",
                List.of(jvm(doc)));
        goComparison(chart, map(doc, "goComparison"));
        Map<?, ?> comparison = map(doc, "comparison");
        if (!comparison.isEmpty()) {
            List<?> servers = list(comparison, "servers");
            String[] names = new String[servers.size()];
            for (int s = 0; s < names.length; s++) {
                names[s] = str((Map<?, ?>) servers.get(s), "name");
            }
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "deliveries per second, median of %.0f runs (higher is better)", num(comparison, "runs")), names);
            List<?> firstCases = servers.isEmpty() ? List.of() : list((Map<?, ?>) servers.getFirst(), "cases");
            for (int i = 0; i < firstCases.size(); i++) {
                double[] values = new double[names.length];
                String note = null;
                for (int s = 0; s < names.length; s++) {
                    Map<?, ?> c = (Map<?, ?>) list((Map<?, ?>) servers.get(s), "cases").get(i);
                    values[s] = Boolean.TRUE.equals(c.get("verified")) ? num(c, "medianDeliveriesPerSecond") : Double.NaN;
                    if (s == 0 && c.get("ratioToBaseline") instanceof Double r && !names[0].equals(str(comparison, "baseline"))) {
                        note = String.format(Locale.ROOT, "%.2fx %s", r, str(comparison, "baseline"));
                    }
                }
                panel.row(str((Map<?, ?>) firstCases.get(i), "case"), values);
                if (note != null) {
                    panel.note(note);
                }
            }
        }
        Map<?, ?> overload = map(doc, "overload");
        if (!list(overload, "slowConsumer").isEmpty()) {
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "overload: messages published per second, alone and with consumers %.0fx slower",
                    num(overload, "slowFactor")), "unloaded", "with slow consumers");
            for (Object o : list(overload, "slowConsumer")) {
                Map<?, ?> r = (Map<?, ?>) o;
                boolean failed = r.get("failure") != null;
                panel.row(str(r, "server"), failed ? Double.NaN : num(r, "unloadedPublishedPerSecond"),
                        failed ? Double.NaN : num(r, "overloadPublishedPerSecond"));
            }
        }
        return chart;
    }

    /** The Go client's panels: throughput and latency per case, or per case throughput against cores. */
    private static void goComparison(SvgBarChart chart, Map<?, ?> go) {
        List<?> results = list(go, "results");
        if (results.isEmpty()) {
            return;
        }
        List<String> servers = new ArrayList<>();
        List<String> cases = new ArrayList<>();
        List<Double> cores = new ArrayList<>();
        for (Object o : results) {
            Map<?, ?> r = (Map<?, ?>) o;
            if (!servers.contains(str(r, "server"))) {
                servers.add(str(r, "server"));
            }
            if (!cases.contains(str(r, "case"))) {
                cases.add(str(r, "case"));
            }
            if (!cores.contains(num(r, "cores"))) {
                cores.add(num(r, "cores"));
            }
        }
        String[] series = servers.toArray(String[]::new);
        String baseline = str(go, "baseline");
        if (cores.size() > 1) {
            for (String c : cases) {
                SvgBarChart.Panel panel = chart.panel("nats.go " + c + ": deliveries per second against the server's CPUs"
                        + " (taskset; * = natsload shared them)", series);
                for (double k : cores) {
                    double[] values = new double[series.length];
                    String label = String.format(Locale.ROOT, "%.0f %s", k, k == 1 ? "core" : "cores");
                    String note = null;
                    for (Object o : results) {
                        Map<?, ?> r = (Map<?, ?>) o;
                        if (str(r, "case").equals(c) && num(r, "cores") == k) {
                            int s = servers.indexOf(str(r, "server"));
                            values[s] = verified(r) ? num(r, "medianDeliveriesPerSecond") : Double.NaN;
                            if (Boolean.TRUE.equals(r.get("sharedCpus"))) {
                                label = String.format(Locale.ROOT, "%.0f cores*", k);
                            }
                            if (s == 0 && r.get("ratioToBaseline") instanceof Double ratio && !series[0].equals(baseline)) {
                                note = String.format(Locale.ROOT, "%.2fx %s", ratio, baseline);
                            }
                        }
                    }
                    panel.row(label, values);
                    if (note != null) {
                        panel.note(note);
                    }
                }
            }
            return;
        }
        SvgBarChart.Panel throughput = null;
        SvgBarChart.Panel latency = null;
        for (String c : cases) {
            double[] values = new double[series.length];
            String note = null;
            boolean isLatency = false;
            for (Object o : results) {
                Map<?, ?> r = (Map<?, ?>) o;
                if (str(r, "case").equals(c)) {
                    isLatency = Boolean.TRUE.equals(r.get("latency"));
                    int s = servers.indexOf(str(r, "server"));
                    values[s] = !verified(r) ? Double.NaN
                            : isLatency ? num(r, "medianP99Micros") : num(r, "medianDeliveriesPerSecond");
                    if (s == 0 && r.get("ratioToBaseline") instanceof Double ratio && !series[0].equals(baseline)) {
                        note = String.format(Locale.ROOT, "%.2fx %s", ratio, baseline);
                    }
                }
            }
            SvgBarChart.Panel panel;
            if (isLatency) {
                if (latency == null) {
                    latency = chart.panel("nats.go: p99 latency in microseconds (lower is better)", series);
                }
                panel = latency;
            } else {
                if (throughput == null) {
                    throughput = chart.panel(String.format(Locale.ROOT, "nats.go: deliveries per second, median of %.0f"
                            + " runs (higher is better; pub only: published)", num(go, "runs")), series);
                }
                panel = throughput;
            }
            panel.row(c, values);
            if (note != null) {
                panel.note(note);
            }
        }
    }

    private static SvgBarChart subs(Map<?, ?> doc) {
        SvgBarChart chart = new SvgBarChart("subscriptions: ringbus-server vs nats-server (nats.go clients)", List.of(
                String.format(Locale.ROOT, "spread over %.0f connections; subscribe, then flush; RSS of the server process",
                        num(doc, "connections")), jvm(doc)));
        List<?> servers = list(doc, "servers");
        String[] names = new String[servers.size()];
        for (int s = 0; s < names.length; s++) {
            names[s] = str((Map<?, ?>) servers.get(s), "name");
        }
        int steps = 0;
        for (Object o : servers) {
            steps = Math.max(steps, list((Map<?, ?>) o, "steps").size());
        }
        SvgBarChart.Panel add = chart.panel("milliseconds to add (lower is better; no bar: failed or timed out)", names);
        SvgBarChart.Panel rss = chart.panel("server RSS in MiB with the subscriptions in place", names);
        for (int i = 0; i < steps; i++) {
            double[] addValues = new double[names.length];
            double[] rssValues = new double[names.length];
            String label = "";
            for (int s = 0; s < names.length; s++) {
                List<?> st = list((Map<?, ?>) servers.get(s), "steps");
                addValues[s] = Double.NaN;
                rssValues[s] = Double.NaN;
                if (i < st.size()) {
                    Map<?, ?> step = (Map<?, ?>) st.get(i);
                    label = String.format(Locale.ROOT, "%,.0f subscriptions", num(step, "subscriptions"));
                    if (step.get("failure") == null) {
                        addValues[s] = num(step, "addMillis");
                        rssValues[s] = Math.max(0, num(step, "rssAfterAddMiB"));
                    }
                }
            }
            add.row(label, addValues);
            rss.row(label, rssValues);
        }
        SvgBarChart.Panel route = chart.panel("routing 1->1 16 B, M msg/s: quiet and while subscriptions churn", "quiet",
                "churning");
        for (Object o : servers) {
            Map<?, ?> r = map((Map<?, ?>) o, "route");
            boolean ok = Boolean.TRUE.equals(r.get("verified"));
            route.row(str((Map<?, ?>) o, "name"), ok ? num(r, "quietPerSecond") / 1e6 : Double.NaN,
                    ok ? num(r, "churnPerSecond") / 1e6 : Double.NaN);
        }
        return chart;
    }

    private static SvgBarChart soak(Map<?, ?> doc) {
        SvgBarChart chart = new SvgBarChart("soak: mixed load, slow and stuck subscribers, connection churn", List.of(
                String.format(Locale.ROOT, "%.0f s, ringbus-server -Xmx%s; sampled every second", num(doc, "durationSeconds"),
                        str(doc, "heap")), jvm(doc)));
        SvgBarChart.Panel panel = chart.panel("MiB: min, max and last sample", "min", "max", "last");
        for (Object o : list(doc, "servers")) {
            Map<?, ?> server = (Map<?, ?>) o;
            for (String metric : List.of("heapBytes", "rssKiB")) {
                double min = Double.NaN;
                double max = Double.NaN;
                double last = Double.NaN;
                for (Object so : list(server, "samples")) {
                    double v = num((Map<?, ?>) so, metric);
                    if (Double.isNaN(v) || v < 0) {
                        continue;
                    }
                    v = metric.equals("heapBytes") ? v / 1048576 : v / 1024;
                    min = Double.isNaN(min) ? v : Math.min(min, v);
                    max = Double.isNaN(max) ? v : Math.max(max, v);
                    last = v;
                }
                if (!Double.isNaN(last)) {
                    panel.row(str(server, "name") + (metric.equals("heapBytes") ? " heap used" : " RSS"), min, max, last);
                }
            }
            panel.note(String.format(Locale.ROOT, "/healthz %.0f/%d, %s", num(server, "healthyAnswers"),
                    list(server, "samples").size(), Boolean.TRUE.equals(server.get("passed")) ? "PASS" : "FAIL"));
        }
        return chart;
    }

    private static SvgBarChart outbox(Map<?, ?> doc) {
        SvgBarChart chart = new SvgBarChart("ringbus-outbox on PostgreSQL vs the database's floor and a 60-line poller",
                List.of(String.format(Locale.ROOT, "%.0f B payloads over %,.0f keys; ringbus batch %,.0f; poller batch"
                                + " %,.0f; %.0f producer connections", num(doc, "payloadBytes"), num(doc, "keys"),
                        num(doc, "ringbusBatchSize"), num(doc, "pollerBatchSize"), num(doc, "producerThreads")),
                        jvm(doc)));
        Map<?, ?> floor = map(doc, "floor");
        ratioPanel(chart, "producers: commits per second, flat out, one row per transaction, with the relay"
                        + " draining (higher is better)", "commits/s", list(doc, "producers"), "commitsPerSecond",
                "plain INSERT floor", num(floor, "commitsPerSecond"));
        ratioPanel(chart, "drain: events per second emptying a keyed backlog (higher is better)", "events/s",
                list(doc, "drain"), "eventsPerSecond", "claim+delete floor", num(floor, "claimRowsPerSecond"));
        List<?> sustained = list(doc, "sustained");
        if (!sustained.isEmpty()) {
            Map<?, ?> first = (Map<?, ?>) sustained.getFirst();
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "sustained: commit to delivery in ms at %,.0f events/s (lower is better)", num(first, "targetRate")),
                    "p50", "p99");
            List<String> names = new ArrayList<>();
            for (Object o : sustained) {
                Map<?, ?> r = (Map<?, ?>) o;
                boolean ok = verified(r);
                panel.row(str(r, "contender"), ok ? num(r, "p50Micros") / 1e3 : Double.NaN,
                        ok ? num(r, "p99Micros") / 1e3 : Double.NaN);
                names.add(str(r, "contender"));
            }
            SvgBarChart.Panel windows = chart.panel(String.format(Locale.ROOT, "sustained: p99 in ms per %.0f s window"
                    + " of commit time (flat is good)", num(doc, "sustainedWindowSeconds")), names.toArray(String[]::new));
            List<?> firstWindows = list(first, "windows");
            for (int w = 0; w < firstWindows.size(); w++) {
                double[] values = new double[sustained.size()];
                for (int c = 0; c < values.length; c++) {
                    List<?> mine = list((Map<?, ?>) sustained.get(c), "windows");
                    values[c] = w < mine.size() ? num((Map<?, ?>) mine.get(w), "p99Micros") / 1e3 : Double.NaN;
                }
                windows.row(String.format(Locale.ROOT, "from %.0f s", num((Map<?, ?>) firstWindows.get(w), "startSeconds")),
                        values);
            }
        }
        List<?> http = list(doc, "http");
        if (!http.isEmpty()) {
            Map<?, ?> first = (Map<?, ?>) http.getFirst();
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "HTTP sink (seed 002): seconds to deliver %,.0f events to a %.0f ms endpoint, measured vs ideal",
                    num(first, "events"), num(first, "latencyMillis")), "elapsed", "ideal");
            for (Object o : http) {
                Map<?, ?> r = (Map<?, ?>) o;
                String label = String.format(Locale.ROOT, "concurrency %.0f, batch %,.0f", num(r, "maxConcurrency"),
                        num(r, "batchSize"));
                if (num(r, "parallelBatches") > 1) {
                    label += String.format(Locale.ROOT, " x%.0f", num(r, "parallelBatches"));
                }
                panel.row(label, verified(r) ? num(r, "elapsedSeconds") : Double.NaN, num(r, "idealSeconds"));
                if (verified(r)) {
                    panel.note(String.format(Locale.ROOT, "%.2fx ideal", num(r, "ratioToIdeal")));
                }
            }
        }
        return chart;
    }

    /** A panel with the floor and one bar per run of {@code member}, a dashed line and ratio ticks at the floor. */
    private static void ratioPanel(SvgBarChart chart, String title, String unit, List<?> runs, String member,
                                   String floorLabel, double floor) {
        if (runs.isEmpty() && Double.isNaN(floor)) {
            return;
        }
        SvgBarChart.Panel panel = chart.panel(title, unit);
        if (!Double.isNaN(floor)) {
            panel.row(floorLabel, floor);
        }
        for (Object o : runs) {
            Map<?, ?> r = (Map<?, ?>) o;
            panel.row(str(r, "contender"), verified(r) ? num(r, member) : Double.NaN);
            if (verified(r) && !Double.isNaN(floor)) {
                panel.note(String.format(Locale.ROOT, "%.2fx floor", num(r, member) / floor));
            }
        }
        panel.reference(floorLabel + " = 1x", floor).ratioAxis();
    }

    private static SvgBarChart jmh(List<?> runs) {
        if (runs.isEmpty() || !(runs.getFirst() instanceof Map<?, ?> first) || !first.containsKey("primaryMetric")) {
            throw new IllegalArgumentException("not a JMH result: an array of benchmarks with a primaryMetric expected");
        }
        // Parameters with one value in every run go to the subtitle, the others into the labels.
        Map<String, String> common = new LinkedHashMap<>();
        if (first.get("params") instanceof Map<?, ?> params) {
            params.forEach((k, v) -> common.put(String.valueOf(k), String.valueOf(v)));
        }
        for (Object o : runs) {
            Map<?, ?> params = ((Map<?, ?>) o).get("params") instanceof Map<?, ?> p ? p : Map.of();
            common.entrySet().removeIf(e -> !e.getValue().equals(String.valueOf(params.get(e.getKey()))));
        }
        List<String> subtitle = new ArrayList<>();
        subtitle.add(String.format(Locale.ROOT, "JMH %s on %s %s; score with its 99.9%% error", str(first, "jmhVersion"),
                str(first, "vmName"), str(first, "vmVersion")));
        if (!common.isEmpty()) {
            subtitle.add("in every run: " + common.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(", ")));
        }
        SvgBarChart chart = new SvgBarChart("ringbus JMH benchmarks", subtitle);
        String unit = null;
        SvgBarChart.Panel panel = null;
        for (Object o : runs) {
            Map<?, ?> run = (Map<?, ?>) o;
            Map<?, ?> metric = map(run, "primaryMetric");
            String runUnit = str(metric, "scoreUnit");
            if (!runUnit.equals(unit)) {
                unit = runUnit;
                panel = chart.panel(str(run, "mode") + ": " + unit, unit);
            }
            String name = str(run, "benchmark");
            StringBuilder label = new StringBuilder(name.substring(name.lastIndexOf('.') + 1));
            if (run.get("params") instanceof Map<?, ?> params) {
                params.forEach((k, v) -> {
                    if (!common.containsKey(String.valueOf(k))) {
                        label.append(' ').append(k).append('=').append(v);
                    }
                });
            }
            panel.row(label.toString(), num(metric, "score"));
            if (metric.get("scoreError") instanceof Double error && Double.isFinite(error)) {
                panel.note("± " + SvgBarChart.format(error));
            }
        }
        return chart;
    }

    private static boolean verified(Map<?, ?> r) {
        return Boolean.TRUE.equals(r.get("verified")) && r.get("failure") == null;
    }

    private static String jvm(Map<?, ?> doc) {
        Map<?, ?> jvm = map(doc, "jvm");
        if (jvm.isEmpty()) {
            return "";
        }
        return String.format(Locale.ROOT, "%s %s (%s), %.0f cores, max heap %.0f MiB", str(jvm, "vmName"),
                str(jvm, "version"), str(jvm, "vendor"), num(doc, "cores"), num(jvm, "maxHeapMiB"));
    }

    private static String millis(double ms) {
        return ms >= 1000 && ms % 1000 == 0 ? String.format(Locale.ROOT, "%.0f s", ms / 1000)
                : String.format(Locale.ROOT, "%s ms", SvgBarChart.format(ms));
    }

    /** @return the member object, empty when absent or null */
    private static Map<?, ?> map(Map<?, ?> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> o)) {
            throw new IllegalArgumentException("an object expected: " + key + "=" + v);
        }
        return o;
    }

    private static List<?> list(Map<?, ?> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> l)) {
            throw new IllegalArgumentException("an array expected: " + key + "=" + v);
        }
        return l;
    }

    private static double num(Map<?, ?> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            return Double.NaN;
        }
        if (!(v instanceof Double d)) {
            throw new IllegalArgumentException("a number expected: " + key + "=" + v);
        }
        return d;
    }

    private static String str(Map<?, ?> m, String key) {
        Object v = m.get(key);
        return v == null ? "" : String.valueOf(v);
    }
}
