package io.ringbus.bench.chart;

import com.fasterxml.jackson.databind.JsonNode;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.ResultsJson;
import io.ringbus.bench.blocking.BlockingResults;
import io.ringbus.bench.jetstream.JetStreamChart;
import io.ringbus.bench.jetstream.JetStreamResults;
import io.ringbus.bench.jmh.JmhRun;
import io.ringbus.bench.network.NetworkResults;
import io.ringbus.bench.network.SoakResults;
import io.ringbus.bench.network.SubsResults;
import io.ringbus.bench.network.TlsResults;
import io.ringbus.bench.outbox.OutboxResults;
import io.ringbus.bench.seed.SeedResults;
import io.ringbus.bench.federation.FederationChart;
import io.ringbus.bench.federation.FederationResults;
import io.ringbus.bench.storage.StorageResults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * Draws a results file of the scenario runner as a bar chart. The chart is made from the JSON,
 * never from the in-memory results, so that {@code chart FILE} on a committed result draws exactly
 * what the run drew. Knows the results records ({@link SeedResults}, {@link BlockingResults},
 * {@link NetworkResults} (comparison and overload), {@link SubsResults}, {@link SoakResults},
 * {@link OutboxResults}, {@link StorageResults}, {@link TlsResults}) and JMH's own JSON array ({@code jmh -rf json}, {@link JmhRun}).
 * Stateless and thread-safe.
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
            doc = read(Files.readString(json, StandardCharsets.UTF_8));
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
     * Reads a results document into its record, chosen by its {@code scenario} member (an array is JMH's).
     *
     * @param json the text of a results file
     * @return a {@link SeedResults}, {@link BlockingResults}, {@link NetworkResults}, {@link SubsResults},
     *         {@link SoakResults}, {@link OutboxResults}, {@link StorageResults}, {@link TlsResults}, or a
     *         {@code List} of {@link JmhRun}
     * @throws IllegalArgumentException when the text is not JSON, names no known scenario, or does not fit
     *                                  its record (an unknown member included)
     */
    public static Object read(String json) {
        JsonNode tree = ResultsJson.tree(json);
        if (tree.isArray()) {
            try {
                return List.of(ResultsJson.read(tree, JmhRun[].class));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("not a JMH result: an array of benchmarks with a primaryMetric"
                        + " expected: " + e.getMessage(), e);
            }
        }
        JsonNode scenario = tree.get("scenario");
        String name = scenario == null || !scenario.isTextual() ? String.valueOf(scenario) : scenario.asText();
        Class<?> type = switch (name) {
            case SeedResults.SCENARIO -> SeedResults.class;
            case BlockingResults.SCENARIO -> BlockingResults.class;
            case NetworkResults.SCENARIO -> NetworkResults.class;
            case SubsResults.SCENARIO -> SubsResults.class;
            case SoakResults.SCENARIO -> SoakResults.class;
            case OutboxResults.SCENARIO -> OutboxResults.class;
            case StorageResults.SCENARIO -> StorageResults.class;
            case FederationResults.SCENARIO -> FederationResults.class;
            case TlsResults.SCENARIO -> TlsResults.class;
            case JetStreamResults.SCENARIO -> JetStreamResults.class;
            default -> throw new IllegalArgumentException("not a ringbus-bench result (seed, blocking, network, subs,"
                    + " soak, outbox, storage, federation, tls or jetstream): scenario=" + name);
        };
        return ResultsJson.read(tree, type);
    }

    /**
     * @param doc a results document as {@link #read} returns it
     * @return its chart
     * @throws IllegalArgumentException when the document is no result this class knows, or has nothing to draw
     */
    public static SvgBarChart chart(Object doc) {
        if (doc instanceof List<?> list) {
            return jmh(list);
        }
        SvgBarChart chart = switch (doc) {
            case SeedResults d -> seed(d);
            case BlockingResults d -> blocking(d);
            case NetworkResults d -> network(d);
            case SubsResults d -> subs(d);
            case SoakResults d -> soak(d);
            case OutboxResults d -> outbox(d);
            case StorageResults d -> StorageChart.draw(d);
            case FederationResults d -> FederationChart.draw(d);
            case TlsResults d -> TlsChart.draw(d);
            case JetStreamResults d -> JetStreamChart.draw(d);
            case null, default -> throw new IllegalArgumentException("not a ringbus-bench result: document=" + doc);
        };
        if (chart.isEmpty()) {
            throw new IllegalArgumentException("the result has no rows to draw: " + doc.getClass().getSimpleName());
        }
        return chart;
    }

    private static SvgBarChart seed(SeedResults doc) {
        SeedResults.Workload w = doc.workload() != null ? doc.workload() : new SeedResults.Workload(0, 0, 0, 0, 0);
        SvgBarChart chart = new SvgBarChart("ringbus seed scenario: dispatch throughput", List.of(
                String.format(Locale.ROOT, "%d producers x %,d events over %d subjects x %d subscribers;"
                                + " wait strategy %s; median of %d rounds", w.producers(), w.eventsPerProducer(),
                        w.subjects(), w.subscribersPerSubject(), str(doc.waitStrategy()), doc.rounds()),
                jvm(doc.jvm(), doc.cores())));
        String baseline = str(doc.baseline());
        SvgBarChart.Panel panel = chart.panel("million dispatches per second (higher is better)", "M dispatches/s");
        double baselineValue = Double.NaN;
        for (SeedResults.Contender c : list(doc.contenders())) {
            double value = c.millionDispatchesPerSecond();
            panel.row(str(c.name()), value);
            if (c.ratioToBaseline() != null) {
                panel.note(String.format(Locale.ROOT, "%.2fx %s", c.ratioToBaseline(), baseline));
            }
            if (str(c.name()).equals(baseline)) {
                baselineValue = value;
            }
        }
        panel.reference(baseline + " = 1x", baselineValue).ratioAxis();
        return chart;
    }

    private static SvgBarChart blocking(BlockingResults doc) {
        BlockingResults.Steady steady = doc.steady();
        SvgBarChart chart = new SvgBarChart("ringbus blocking handlers per execution mode",
                List.of(jvm(doc.jvm(), doc.cores())));
        List<BlockingResults.SteadyRow> results = steady == null ? List.of() : list(steady.results());
        if (!results.isEmpty()) {
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "steady sender (seed 001): messages received per minute, handler blocks %.0f ms, one send every %.0f ms",
                    steady.blockMs(), steady.sendIntervalMs()), "received/min");
            double scheduled = Double.NaN;
            for (BlockingResults.SteadyRow r : results) {
                panel.row(str(r.receiver()), r.receivedPerMinute());
                if (r.senderSlowed()) {
                    panel.note("sender slowed by backpressure");
                }
                scheduled = r.scheduledPerMinute();
            }
            panel.reference("sender's schedule = 1x", scheduled).ratioAxis();
        }
        List<BlockingResults.Burst> burst = list(doc.burst());
        if (!burst.isEmpty()) {
            SvgBarChart.Panel panel = chart.panel("burst (seeds 002/004): efficiency = ideal time / measured time"
                    + " (1 = ideal)", "efficiency");
            for (BlockingResults.Burst r : burst) {
                panel.row(str(r.handler()) + ", blocks " + millis(r.latencyMs()), r.efficiency());
                panel.note(String.format(Locale.ROOT, "%,.0f ms for %,d messages", r.timeMs(), r.messages()));
            }
            panel.reference("ideal", 1.0);
        }
        return chart;
    }

    private static SvgBarChart network(NetworkResults doc) {
        SvgBarChart chart = new SvgBarChart("ringbus-server vs nats-server over TCP (" + str(doc.client()) + " clients)",
                List.of(jvm(doc.jvm(), doc.cores())));
        goComparison(chart, doc.goComparison());
        NetworkResults.Comparison comparison = doc.comparison();
        if (comparison != null) {
            List<NetworkResults.ComparisonServer> servers = list(comparison.servers());
            String[] names = new String[servers.size()];
            for (int s = 0; s < names.length; s++) {
                names[s] = str(servers.get(s).name());
            }
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "deliveries per second, median of %d runs (higher is better)", comparison.runs()), names);
            List<NetworkResults.CaseRow> firstCases = servers.isEmpty() ? List.of() : list(servers.getFirst().cases());
            for (int i = 0; i < firstCases.size(); i++) {
                double[] values = new double[names.length];
                String note = null;
                for (int s = 0; s < names.length; s++) {
                    NetworkResults.CaseRow c = servers.get(s).cases().get(i);
                    values[s] = c.verified() ? c.medianDeliveriesPerSecond() : Double.NaN;
                    if (s == 0 && c.ratioToBaseline() != null && !names[0].equals(str(comparison.baseline()))) {
                        note = String.format(Locale.ROOT, "%.2fx %s", c.ratioToBaseline(), str(comparison.baseline()));
                    }
                }
                panel.row(str(firstCases.get(i).caseLabel()), values);
                if (note != null) {
                    panel.note(note);
                }
            }
        }
        NetworkResults.Overload overload = doc.overload();
        if (overload != null && !list(overload.slowConsumer()).isEmpty()) {
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "overload: messages published per second, alone and with consumers %dx slower",
                    overload.slowFactor()), "unloaded", "with slow consumers");
            for (NetworkResults.SlowConsumerRow r : overload.slowConsumer()) {
                boolean failed = r.failure() != null;
                panel.row(str(r.server()), failed ? Double.NaN : r.unloadedPublishedPerSecond(),
                        failed ? Double.NaN : r.overloadPublishedPerSecond());
            }
        }
        return chart;
    }

    /** The Go client's panels: throughput and latency per case, or per case throughput against cores. */
    private static void goComparison(SvgBarChart chart, NetworkResults.Go go) {
        List<NetworkResults.GoRow> results = go == null ? List.of() : list(go.results());
        if (results.isEmpty()) {
            return;
        }
        List<String> servers = new ArrayList<>();
        List<String> cases = new ArrayList<>();
        List<Integer> cores = new ArrayList<>();
        for (NetworkResults.GoRow r : results) {
            if (!servers.contains(str(r.server()))) {
                servers.add(str(r.server()));
            }
            if (!cases.contains(str(r.caseLabel()))) {
                cases.add(str(r.caseLabel()));
            }
            if (!cores.contains(r.cores())) {
                cores.add(r.cores());
            }
        }
        String[] series = servers.toArray(String[]::new);
        String baseline = str(go.baseline());
        if (cores.size() > 1) {
            for (String c : cases) {
                SvgBarChart.Panel panel = chart.panel("nats.go " + c + ": deliveries per second against the server's CPUs"
                        + " (taskset; * = natsload shared them)", series);
                for (int k : cores) {
                    double[] values = new double[series.length];
                    String label = String.format(Locale.ROOT, "%d %s", k, k == 1 ? "core" : "cores");
                    String note = null;
                    for (NetworkResults.GoRow r : results) {
                        if (str(r.caseLabel()).equals(c) && r.cores() == k) {
                            int s = servers.indexOf(str(r.server()));
                            values[s] = verified(r.verified(), r.failure()) ? r.medianDeliveriesPerSecond() : Double.NaN;
                            if (r.sharedCpus()) {
                                label = String.format(Locale.ROOT, "%d cores*", k);
                            }
                            if (s == 0 && r.ratioToBaseline() != null && !series[0].equals(baseline)) {
                                note = String.format(Locale.ROOT, "%.2fx %s", r.ratioToBaseline(), baseline);
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
            for (NetworkResults.GoRow r : results) {
                if (str(r.caseLabel()).equals(c)) {
                    isLatency = r.latency();
                    int s = servers.indexOf(str(r.server()));
                    values[s] = !verified(r.verified(), r.failure()) ? Double.NaN
                            : isLatency ? r.medianP99Micros() : r.medianDeliveriesPerSecond();
                    if (s == 0 && r.ratioToBaseline() != null && !series[0].equals(baseline)) {
                        note = String.format(Locale.ROOT, "%.2fx %s", r.ratioToBaseline(), baseline);
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
                    throughput = chart.panel(String.format(Locale.ROOT, "nats.go: deliveries per second, median of %d"
                            + " runs (higher is better; pub only: published)", go.runs()), series);
                }
                panel = throughput;
            }
            panel.row(c, values);
            if (note != null) {
                panel.note(note);
            }
        }
    }

    private static SvgBarChart subs(SubsResults doc) {
        SvgBarChart chart = new SvgBarChart("subscriptions: ringbus-server vs nats-server (nats.go clients)", List.of(
                String.format(Locale.ROOT, "spread over %d connections; subscribe, then flush; RSS of the server process",
                        doc.connections()), jvm(doc.jvm(), doc.cores())));
        List<SubsResults.Server> servers = list(doc.servers());
        String[] names = new String[servers.size()];
        for (int s = 0; s < names.length; s++) {
            names[s] = str(servers.get(s).name());
        }
        int steps = 0;
        for (SubsResults.Server server : servers) {
            steps = Math.max(steps, list(server.steps()).size());
        }
        SvgBarChart.Panel add = chart.panel("milliseconds to add (lower is better; no bar: failed or timed out)", names);
        SvgBarChart.Panel rss = chart.panel("server RSS in MiB with the subscriptions in place", names);
        for (int i = 0; i < steps; i++) {
            double[] addValues = new double[names.length];
            double[] rssValues = new double[names.length];
            String label = "";
            for (int s = 0; s < names.length; s++) {
                var st = list(servers.get(s).steps());
                addValues[s] = Double.NaN;
                rssValues[s] = Double.NaN;
                if (i < st.size()) {
                    var step = st.get(i);
                    label = String.format(Locale.ROOT, "%,d subscriptions", step.subscriptions());
                    if (step.failure() == null) {
                        addValues[s] = step.addMillis();
                        rssValues[s] = Math.max(0, step.rssAfterAddMiB());
                    }
                }
            }
            add.row(label, addValues);
            rss.row(label, rssValues);
        }
        SvgBarChart.Panel route = chart.panel("routing 1->1 16 B, M msg/s: quiet and while subscriptions churn", "quiet",
                "churning");
        for (SubsResults.Server server : servers) {
            var r = server.route();
            boolean ok = r != null && r.verified();
            route.row(str(server.name()), ok ? r.quietPerSecond() / 1e6 : Double.NaN,
                    ok ? r.churnPerSecond() / 1e6 : Double.NaN);
        }
        return chart;
    }

    private static SvgBarChart soak(SoakResults doc) {
        SvgBarChart chart = new SvgBarChart("soak: mixed load, slow and stuck subscribers, connection churn", List.of(
                String.format(Locale.ROOT, "%d s, ringbus-server -Xmx%s; sampled every second", doc.durationSeconds(),
                        str(doc.heap())), jvm(doc.jvm(), doc.cores())));
        SvgBarChart.Panel panel = chart.panel("MiB: min, max and last sample", "min", "max", "last");
        for (SoakResults.Server server : list(doc.servers())) {
            List<SoakResults.Sample> samples = list(server.samples());
            soakRow(panel, str(server.name()) + " heap used", samples, SoakResults.Sample::heapBytes, 1048576);
            soakRow(panel, str(server.name()) + " RSS", samples, SoakResults.Sample::rssKiB, 1024);
            panel.note(String.format(Locale.ROOT, "/healthz %d/%d, %s", server.healthyAnswers(), samples.size(),
                    server.passed() ? "PASS" : "FAIL"));
        }
        return chart;
    }

    /** One row of min, max and last in MiB over the samples that know {@code metric} (-1: unknown). */
    private static void soakRow(SvgBarChart.Panel panel, String label, List<SoakResults.Sample> samples,
                                ToLongFunction<SoakResults.Sample> metric, double perMiB) {
        double min = Double.NaN;
        double max = Double.NaN;
        double last = Double.NaN;
        for (SoakResults.Sample sample : samples) {
            long raw = metric.applyAsLong(sample);
            if (raw < 0) {
                continue;
            }
            double v = raw / perMiB;
            min = Double.isNaN(min) ? v : Math.min(min, v);
            max = Double.isNaN(max) ? v : Math.max(max, v);
            last = v;
        }
        if (!Double.isNaN(last)) {
            panel.row(label, min, max, last);
        }
    }

    private static SvgBarChart outbox(OutboxResults doc) {
        SvgBarChart chart = new SvgBarChart("ringbus-outbox on PostgreSQL vs the database's floor and a 60-line poller",
                List.of(String.format(Locale.ROOT, "%d B payloads over %,d keys; ringbus batch %,d; poller batch"
                                + " %,d; %d producer connections", doc.payloadBytes(), doc.keys(),
                        doc.ringbusBatchSize(), doc.pollerBatchSize(), doc.producerThreads()),
                        jvm(doc.jvm(), doc.cores())));
        OutboxResults.Floor floor = doc.floor();
        ratioPanel(chart, "producers: commits per second, flat out, one row per transaction, with the relay"
                        + " draining (higher is better)", "commits/s",
                list(doc.producers()).stream().map(r -> new Bar(r.contender(), verified(r.verified(), r.failure()),
                        r.commitsPerSecond())).toList(),
                "plain INSERT floor", floor == null ? Double.NaN : nan(floor.commitsPerSecond()));
        ratioPanel(chart, "drain: events per second emptying a keyed backlog (higher is better)", "events/s",
                list(doc.drain()).stream().map(r -> new Bar(r.contender(), verified(r.verified(), r.failure()),
                        r.eventsPerSecond())).toList(),
                "claim+delete floor", floor == null ? Double.NaN : nan(floor.claimRowsPerSecond()));
        List<OutboxResults.SustainedRow> sustained = list(doc.sustained());
        if (!sustained.isEmpty()) {
            OutboxResults.SustainedRow first = sustained.getFirst();
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "sustained: commit to delivery in ms at %,.0f events/s (lower is better)", first.targetRate()),
                    "p50", "p99");
            List<String> names = new ArrayList<>();
            for (OutboxResults.SustainedRow r : sustained) {
                boolean ok = verified(r.verified(), r.failure());
                panel.row(str(r.contender()), ok ? r.p50Micros() / 1e3 : Double.NaN,
                        ok ? r.p99Micros() / 1e3 : Double.NaN);
                names.add(str(r.contender()));
            }
            SvgBarChart.Panel windows = chart.panel(String.format(Locale.ROOT, "sustained: p99 in ms per %.0f s window"
                    + " of commit time (flat is good)", doc.sustainedWindowSeconds()), names.toArray(String[]::new));
            List<OutboxResults.Window> firstWindows = list(first.windows());
            for (int w = 0; w < firstWindows.size(); w++) {
                double[] values = new double[sustained.size()];
                for (int c = 0; c < values.length; c++) {
                    List<OutboxResults.Window> mine = list(sustained.get(c).windows());
                    values[c] = w < mine.size() ? mine.get(w).p99Micros() / 1e3 : Double.NaN;
                }
                windows.row(String.format(Locale.ROOT, "from %.0f s", firstWindows.get(w).startSeconds()), values);
            }
        }
        List<OutboxResults.HttpRow> http = list(doc.http());
        if (!http.isEmpty()) {
            OutboxResults.HttpRow first = http.getFirst();
            SvgBarChart.Panel panel = chart.panel(String.format(Locale.ROOT,
                    "HTTP sink (seed 002): seconds to deliver %,d events to a %d ms endpoint, measured vs ideal",
                    first.events(), first.latencyMillis()), "elapsed", "ideal");
            for (OutboxResults.HttpRow r : http) {
                String label = String.format(Locale.ROOT, "concurrency %d, batch %,d", r.maxConcurrency(), r.batchSize());
                if (r.parallelBatches() > 1) {
                    label += String.format(Locale.ROOT, " x%d", r.parallelBatches());
                }
                boolean ok = verified(r.verified(), r.failure());
                panel.row(label, ok ? r.elapsedSeconds() : Double.NaN, r.idealSeconds());
                if (ok) {
                    panel.note(String.format(Locale.ROOT, "%.2fx ideal", r.ratioToIdeal()));
                }
            }
        }
        return chart;
    }

    /** One bar of a {@link #ratioPanel}: a run's figure, drawn only when the run verified. */
    private record Bar(String contender, boolean verified, double value) {
    }

    /** A panel with the floor and one bar per run, a dashed line and ratio ticks at the floor. */
    private static void ratioPanel(SvgBarChart chart, String title, String unit, List<Bar> runs, String floorLabel,
                                   double floor) {
        if (runs.isEmpty() && Double.isNaN(floor)) {
            return;
        }
        SvgBarChart.Panel panel = chart.panel(title, unit);
        if (!Double.isNaN(floor)) {
            panel.row(floorLabel, floor);
        }
        for (Bar r : runs) {
            panel.row(str(r.contender()), r.verified() ? r.value() : Double.NaN);
            if (r.verified() && !Double.isNaN(floor)) {
                panel.note(String.format(Locale.ROOT, "%.2fx floor", r.value() / floor));
            }
        }
        panel.reference(floorLabel + " = 1x", floor).ratioAxis();
    }

    private static SvgBarChart jmh(List<?> documents) {
        List<JmhRun> runs = new ArrayList<>();
        for (Object o : documents) {
            if (!(o instanceof JmhRun run) || run.primaryMetric() == null) {
                throw new IllegalArgumentException("not a JMH result: an array of benchmarks with a primaryMetric expected");
            }
            runs.add(run);
        }
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("not a JMH result: an array of benchmarks with a primaryMetric expected");
        }
        JmhRun first = runs.getFirst();
        // Parameters with one value in every run go to the subtitle, the others into the labels.
        Map<String, String> common = new LinkedHashMap<>();
        if (first.params() != null) {
            common.putAll(first.params());
        }
        for (JmhRun run : runs) {
            Map<String, String> params = run.params() != null ? run.params() : Map.of();
            common.entrySet().removeIf(e -> !e.getValue().equals(String.valueOf(params.get(e.getKey()))));
        }
        List<String> subtitle = new ArrayList<>();
        subtitle.add(String.format(Locale.ROOT, "JMH %s on %s %s; score with its 99.9%% error", str(first.jmhVersion()),
                str(first.vmName()), str(first.vmVersion())));
        if (!common.isEmpty()) {
            subtitle.add("in every run: " + common.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(", ")));
        }
        SvgBarChart chart = new SvgBarChart("ringbus JMH benchmarks", subtitle);
        String unit = null;
        SvgBarChart.Panel panel = null;
        for (JmhRun run : runs) {
            JmhRun.Metric metric = run.primaryMetric();
            String runUnit = str(metric.scoreUnit());
            if (!runUnit.equals(unit)) {
                unit = runUnit;
                panel = chart.panel(str(run.mode()) + ": " + unit, unit);
            }
            String name = str(run.benchmark());
            StringBuilder label = new StringBuilder(name.substring(name.lastIndexOf('.') + 1));
            if (run.params() != null) {
                run.params().forEach((k, v) -> {
                    if (!common.containsKey(k)) {
                        label.append(' ').append(k).append('=').append(v);
                    }
                });
            }
            panel.row(label.toString(), metric.score());
            if (Double.isFinite(metric.scoreError())) {
                panel.note("± " + SvgBarChart.format(metric.scoreError()));
            }
        }
        return chart;
    }

    private static boolean verified(boolean verified, String failure) {
        return verified && failure == null;
    }

    private static String jvm(JvmDescription.Vm jvm, int cores) {
        if (jvm == null) {
            return "";
        }
        return String.format(Locale.ROOT, "%s %s (%s), %d cores, max heap %d MiB", str(jvm.vmName()),
                str(jvm.version()), str(jvm.vendor()), cores, jvm.maxHeapMiB());
    }

    private static String millis(double ms) {
        return ms >= 1000 && ms % 1000 == 0 ? String.format(Locale.ROOT, "%.0f s", ms / 1000)
                : String.format(Locale.ROOT, "%s ms", SvgBarChart.format(ms));
    }

    /** @return the list, empty when the member was absent */
    private static <T> List<T> list(List<T> list) {
        return list == null ? List.of() : list;
    }

    /** @return the number, NaN when the member was absent */
    private static double nan(Double value) {
        return value == null ? Double.NaN : value;
    }

    /** @return the text, empty when the member was absent */
    private static String str(String value) {
        return value == null ? "" : value;
    }
}
