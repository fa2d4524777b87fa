package io.ringbus.bench.outbox;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JsonWriter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.chart.ResultCharts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The {@code outbox} subcommand: ringbus-outbox relays on PostgreSQL against seed 002's naive
 * poller (throughput of a drained backlog, commit-to-delivery latency at a fixed rate), then seed
 * 002's HTTP experiment (a slow endpoint at two concurrencies against the ideal). Each run has a
 * fresh schema, dropped afterwards. Exit code 0 when every run delivered every event, 2 otherwise,
 * 1 when PostgreSQL or the endpoint could not be used.
 */
@Command(name = "outbox",
        description = "ringbus-outbox relays (x1, x4) vs a naive 1 s / 1,000-row poller on PostgreSQL, then seed 002's"
                + " HTTP experiment.")
public final class OutboxCommand implements Callable<Integer> {
    /** Which parts to run. */
    enum Part { THROUGHPUT, LATENCY, HTTP, ALL }

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--only", description = "THROUGHPUT, LATENCY, HTTP or ALL (default: ${DEFAULT-VALUE})")
    Part only = Part.ALL;

    @Option(names = "--pg-url", description = "PostgreSQL JDBC URL with the user (default: ${DEFAULT-VALUE})")
    String pgUrl = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Option(names = "--contenders", split = ",", description = "subset of RINGBUS_1, RINGBUS_4, NAIVE, in run order"
            + " (default: all)")
    List<RelayContender> contenders = new ArrayList<>(List.of(RelayContender.values()));

    @Option(names = "--backlog", description = "throughput: rows drained by the ringbus relays (default: ${DEFAULT-VALUE})")
    int backlog = 200_000;

    @Option(names = "--naive-backlog", description = "throughput: rows drained by the naive poller, which moves"
            + " at most 1,000 per second (default: ${DEFAULT-VALUE})")
    int naiveBacklog = 10_000;

    @Option(names = "--warmup-backlog", description = "throughput: rows of an unreported warm-up drain by one relay,"
            + " 0 for none (default: ${DEFAULT-VALUE})")
    int warmupBacklog = 20_000;

    @Option(names = "--batch-size", description = "rows per claim of the ringbus relays (default: ${DEFAULT-VALUE},"
            + " the naive poller's batch)")
    int batchSize = 1_000;

    @Option(names = "--rate", description = "latency: appends per second (default: ${DEFAULT-VALUE})")
    double rate = 1_000;

    @Option(names = "--duration", converter = HumanDurationConverter.class,
            description = "latency: measured appending time per contender (default: 20s)")
    Duration duration = Duration.ofSeconds(20);

    @Option(names = "--warmup", converter = HumanDurationConverter.class,
            description = "latency: unmeasured appending time before it (default: 5s)")
    Duration warmup = Duration.ofSeconds(5);

    @Option(names = "--producers", description = "latency: connections appending on the shared schedule"
            + " (default: ${DEFAULT-VALUE})")
    int producers = 4;

    @Option(names = "--http-events", description = "http: rows (default: ${DEFAULT-VALUE}, as in seed 002)")
    int httpEvents = 10_000;

    @Option(names = "--http-latency", converter = HumanDurationConverter.class,
            description = "http: the endpoint's answer delay (default: 50ms)")
    Duration httpLatency = Duration.ofMillis(50);

    @Option(names = "--http-cases", split = ",", description = "http: concurrency:batch[:parallelBatches] cases, in"
            + " run order (default: 50:1000,300:1000,300:1000:2,300:10000)")
    List<String> httpCases = new ArrayList<>(List.of("50:1000", "300:1000", "300:1000:2", "300:10000"));

    @Option(names = "--http-warmup-events", description = "http: rows of an unreported warm-up run at the first case,"
            + " 0 for none (default: ${DEFAULT-VALUE})")
    int httpWarmupEvents = 2_000;

    @Option(names = "--timeout", converter = HumanDurationConverter.class,
            description = "longest a drain, or the wait after the last append, may take (default: 300s)")
    Duration timeout = Duration.ofSeconds(300);

    @Option(names = "--json", description = "also write the results as JSON to this file, and as an SVG chart beside it (.svg for .json)")
    Path json;

    /** Creates the command; picocli fills in the options. */
    public OutboxCommand() {
    }

    @Override
    public Integer call() throws Exception {
        List<int[]> cases;
        try {
            cases = validate();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        // HikariCP logs every pool start and stop at INFO; a run opens a pool per schema.
        if (System.getProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "warn");
        }
        PrintStream out = System.out;
        JvmDescription jvm = JvmDescription.current();
        out.println(jvm.headline());
        out.printf(Locale.ROOT, "outbox scenario: PostgreSQL %s, a fresh schema per run; contenders %s%n",
                pgUrl.replaceAll("\\?.*", ""), contenders.stream().map(RelayContender::label).toList());
        List<ThroughputResult> throughput = new ArrayList<>();
        List<LatencyResult> latency = new ArrayList<>();
        List<HttpResult> http = new ArrayList<>();
        try {
            if (only == Part.ALL || only == Part.THROUGHPUT) {
                ThroughputScenario scenario = new ThroughputScenario(pgUrl, batchSize, timeout, out);
                if (warmupBacklog > 0) {
                    out.println("  (warm-up, not reported)");
                    scenario.run(RelayContender.RINGBUS_1, warmupBacklog);
                }
                for (RelayContender contender : contenders) {
                    throughput.add(scenario.run(contender, contender == RelayContender.NAIVE ? naiveBacklog : backlog));
                }
            }
            if (only == Part.ALL || only == Part.LATENCY) {
                LatencyScenario scenario = new LatencyScenario(pgUrl, batchSize, rate, warmup, duration, producers,
                        timeout, out);
                for (RelayContender contender : contenders) {
                    latency.add(scenario.run(contender));
                }
            }
            if (only == Part.ALL || only == Part.HTTP) {
                HttpScenario scenario = new HttpScenario(pgUrl, httpLatency, timeout, out);
                if (httpWarmupEvents > 0) {
                    out.println("  (warm-up, not reported)");
                    scenario.run(httpWarmupEvents, cases.get(0)[0], cases.get(0)[1], cases.get(0)[2]);
                }
                for (int[] c : cases) {
                    http.add(scenario.run(httpEvents, c[0], c[1], c[2]));
                }
            }
        } catch (java.sql.SQLException | java.io.IOException e) {
            System.err.println("FAILED: " + e);
            return 1;
        }
        OutboxReport report = new OutboxReport(throughput, latency, http);
        out.println();
        out.print(report.text());
        if (json != null) {
            JsonWriter writer = new JsonWriter().beginObject();
            writer.name("scenario").value("outbox");
            jvm.writeMembers(writer);
            writer.name("database").value(pgUrl.replaceAll("\\?.*", ""));
            writer.name("payloadBytes").value(EventPayload.BYTES);
            writer.name("keys").value(EventPayload.KEYS);
            writer.name("ringbusBatchSize").value(batchSize);
            writer.name("naiveIntervalMillis").value(RelayContender.NAIVE_INTERVAL.toMillis());
            writer.name("naiveBatchSize").value(RelayContender.NAIVE_BATCH);
            writer.name("latencyProducers").value(producers);
            writer.name("latencyWarmupSeconds").value(warmup.toNanos() / 1e9);
            report.writeMembers(writer);
            Files.writeString(json, writer.endObject().toJson(), StandardCharsets.UTF_8);
            out.println("JSON written to " + json);
            out.println("chart written to " + ResultCharts.writeBeside(json));
        }
        if (!report.passed()) {
            System.err.println("FAILED: see the FAILED lines above");
            return 2;
        }
        return 0;
    }

    private List<int[]> validate() {
        if (!pgUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("pg-url must start with jdbc:postgresql: pg-url=" + pgUrl);
        }
        positive("backlog", backlog);
        positive("naive-backlog", naiveBacklog);
        positive("http-events", httpEvents);
        positive("producers", producers);
        if (warmupBacklog < 0 || httpWarmupEvents < 0) {
            throw new IllegalArgumentException("warm-up sizes must be >= 0: warmup-backlog=" + warmupBacklog
                    + ", http-warmup-events=" + httpWarmupEvents);
        }
        if (batchSize < 1 || batchSize > io.ringbus.outbox.RelayBuilder.MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batch-size must be in [1, " + io.ringbus.outbox.RelayBuilder.MAX_BATCH_SIZE
                    + "]: batch-size=" + batchSize);
        }
        if (!(rate > 0 && rate <= 100_000)) {
            throw new IllegalArgumentException("rate must be in (0, 100000]: rate=" + rate);
        }
        if (duration.isNegative() || duration.isZero() || warmup.isNegative()) {
            throw new IllegalArgumentException("duration must be positive and warmup >= 0: duration=" + duration
                    + ", warmup=" + warmup);
        }
        List<int[]> cases = new ArrayList<>();
        for (String c : httpCases) {
            String[] parts = c.split(":");
            try {
                if (parts.length != 2 && parts.length != 3) {
                    throw new NumberFormatException();
                }
                int parallel = parts.length == 3 ? Integer.parseInt(parts[2].trim()) : 1;
                if (parallel < 1 || parallel > io.ringbus.outbox.RelayBuilder.MAX_PARALLEL_BATCHES) {
                    throw new IllegalArgumentException("http parallel batches must be in [1, "
                            + io.ringbus.outbox.RelayBuilder.MAX_PARALLEL_BATCHES + "]: http-case=" + c);
                }
                int concurrency = Integer.parseInt(parts[0].trim());
                int batch = Integer.parseInt(parts[1].trim());
                positive("http concurrency", concurrency);
                if (batch < 1 || batch > io.ringbus.outbox.RelayBuilder.MAX_BATCH_SIZE) {
                    throw new IllegalArgumentException("http batch must be in [1, "
                            + io.ringbus.outbox.RelayBuilder.MAX_BATCH_SIZE + "]: http-case=" + c);
                }
                cases.add(new int[] {concurrency, batch, parallel});
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("http-cases are concurrency:batch[:parallelBatches] like 300:1000:2: http-case=" + c);
            }
        }
        if (cases.isEmpty()) {
            throw new IllegalArgumentException("http-cases must name at least one case: http-cases=" + httpCases);
        }
        return cases;
    }

    private static void positive(String what, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be >= 1: " + what + "=" + value);
        }
    }
}
