package io.ringbus.bench.outbox;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.ResultsFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The {@code outbox} subcommand, issue 16's benchmark: ringbus-outbox on PostgreSQL against
 * PostgreSQL's own floor and a 60-line {@code SKIP LOCKED} poller, all measured in one run: the
 * commit and claim+delete floors, producers at full speed with a relay draining, drains of a
 * keyed backlog by 1, 2 and 4 relays, paced producers at 90 % of the commit floor (latency and
 * backlog per window); then seed 002's HTTP experiment. Each run has a fresh schema, dropped
 * afterwards. Exit code 0 when every run delivered every event (goals met or not), 2 otherwise,
 * 1 when PostgreSQL or the endpoint could not be used.
 */
@Command(name = "outbox",
        description = "ringbus-outbox relays on PostgreSQL against the database's floor (plain INSERT commits,"
                + " claim+delete) and a 60-line SKIP LOCKED poller: producers, drain, sustained rate; then seed 002's"
                + " HTTP experiment.")
public final class OutboxCommand implements Callable<Integer> {
    /** Which parts to run; ALL is every part but SEARCH, which runs only when named (it takes minutes). */
    enum Part { FLOOR, PRODUCERS, DRAIN, SUSTAINED, HTTP, SEARCH, ALL }

    /** The sustained rate, as a fraction of the commit floor, unless {@code --rate} is given. */
    static final double SUSTAINED_FRACTION = 0.9;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--only", split = ",", description = "parts to run, among FLOOR, PRODUCERS, DRAIN, SUSTAINED, HTTP,"
            + " SEARCH, ALL (all but SEARCH); a part that needs a floor measures it (default: ALL)")
    List<Part> only = new ArrayList<>(List.of(Part.ALL));

    @Option(names = "--pg-url", description = "PostgreSQL JDBC URL with the user (default: ${DEFAULT-VALUE})")
    String pgUrl = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Option(names = "--contenders", split = ",", description = "subset of RINGBUS_1, RINGBUS_2, RINGBUS_4, RINGBUS_WAL, RINGBUS_LOG, POLLER, GRUELBOX,"
            + " NAMASTACK, in run order; producers and sustained run the one-relay ones (default: all)")
    List<RelayContender> contenders = new ArrayList<>(List.of(RelayContender.values()));

    @Option(names = "--producers", description = "producer connections of the commit floor, producers and sustained"
            + " parts (default: ${DEFAULT-VALUE})")
    int producers = 8;

    @Option(names = "--producer-duration", converter = HumanDurationConverter.class,
            description = "floor and producers: measured time of each flat-out run (default: 10s)")
    Duration producerDuration = Duration.ofSeconds(10);

    @Option(names = "--producer-warmup", converter = HumanDurationConverter.class,
            description = "floor and producers: unmeasured time before it (default: 2s)")
    Duration producerWarmup = Duration.ofSeconds(2);

    @Option(names = "--backlog", description = "drain and claim+delete floor: rows in the backlog (default: ${DEFAULT-VALUE})")
    int backlog = 200_000;

    @Option(names = "--repeats", description = "floor, producers and drain: rounds, each running every contender"
            + " once; the median run is reported, a failed run fails the result (default: ${DEFAULT-VALUE})")
    int repeats = 3;

    @Option(names = "--warmup-backlog", description = "drain: rows of an unreported warm-up drain by one relay,"
            + " 0 for none (default: ${DEFAULT-VALUE})")
    int warmupBacklog = 20_000;

    @Option(names = "--analyze", description = "drain and claim+delete floor: ANALYZE the tables after each fill"
            + " (default: left without statistics, as a queue table is where autovacuum is off); either way a"
            + " CHECKPOINT follows each fill")
    boolean analyze;

    @Option(names = "--batch-size", description = "rows per claim of the ringbus relays (default: ${DEFAULT-VALUE},"
            + " the poller's batch)")
    int batchSize = 1_000;

    @Option(names = "--rate", description = "sustained: appends per second (default: 90 % of the commit floor)")
    Double rate;

    @Option(names = "--duration", converter = HumanDurationConverter.class,
            description = "sustained: measured appending time per contender, e.g. 10m (default: 20s)")
    Duration duration = Duration.ofSeconds(20);

    @Option(names = "--warmup", converter = HumanDurationConverter.class,
            description = "sustained: unmeasured appending time before it (default: 5s)")
    Duration warmup = Duration.ofSeconds(5);

    @Option(names = "--window", converter = HumanDurationConverter.class,
            description = "sustained: p99 and backlog are also reported per window of this length (default: 10s)")
    Duration window = Duration.ofSeconds(10);

    @Option(names = "--search-steps", description = "search: bisection steps per one-relay contender, each a sustained"
            + " run of --search-duration (default: ${DEFAULT-VALUE})")
    int searchSteps = 5;

    @Option(names = "--search-duration", converter = HumanDurationConverter.class,
            description = "search: measured appending time of each step, after --warmup (default: 10s)")
    Duration searchDuration = Duration.ofSeconds(10);

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

    @Mixin
    ResultsFile json;

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
        // HikariCP logs every pool start and stop at INFO; a run opens a pool per schema. The peers
        // log each event (gruelbox) and each context start (Spring, namastack) at INFO.
        // Hibernate Validator (gruelbox's) logs its version through jboss-logging: route that to slf4j too.
        if (System.getProperty("org.jboss.logging.provider") == null) {
            System.setProperty("org.jboss.logging.provider", "slf4j");
        }
        for (String logger : List.of("org.hibernate.validator", "com.zaxxer.hikari", "com.gruelbox.transactionoutbox", "io.namastack",
                "org.springframework")) {
            if (System.getProperty("org.slf4j.simpleLogger.log." + logger) == null) {
                System.setProperty("org.slf4j.simpleLogger.log." + logger, "warn");
            }
        }
        PrintStream out = System.out;
        JvmDescription jvm = JvmDescription.current();
        out.println(jvm.headline());
        out.printf(Locale.ROOT, "outbox scenario: PostgreSQL %s, a fresh schema per run; contenders %s%n",
                pgUrl.replaceAll("\\?.*", ""), contenders.stream().map(RelayContender::label).toList());
        out.println("  drains start after " + (analyze ? "ANALYZE of the tables and " : "") + "a CHECKPOINT; tables "
                + (analyze ? "analyzed" : "never analyzed"));
        if (contenders.contains(RelayContender.GRUELBOX)) {
            out.println("  " + GruelboxPeer.settings());
        }
        if (contenders.contains(RelayContender.NAMASTACK)) {
            out.println("  " + NamastackPeer.settings());
        }
        List<RelayContender> oneRelay = contenders.stream().filter(c -> c.relays() == 1).toList();
        ProducerResult commitFloor = null;
        DrainResult claimFloor = null;
        List<ProducerResult> producerRuns = new ArrayList<>();
        List<DrainResult> drains = new ArrayList<>();
        List<SustainedResult> sustained = new ArrayList<>();
        List<HttpResult> http = new ArrayList<>();
        List<RateSearch.Result> searches = new ArrayList<>();
        try {
            ProducerScenario producerScenario = new ProducerScenario(pgUrl, batchSize, producers, producerWarmup,
                    producerDuration, timeout, out);
            boolean commitFloorNeeded = runs(Part.FLOOR) || runs(Part.PRODUCERS) || runs(Part.SUSTAINED) && rate == null
                    || only.contains(Part.SEARCH);
            boolean withAlone = oneRelay.contains(RelayContender.RINGBUS_1);
            // Rounds interleave the runs, so that a drift of the machine (or a neighbour's load) touches all alike.
            Map<String, List<ProducerResult>> produced = new LinkedHashMap<>();
            for (int round = 0; round < repeats && commitFloorNeeded; round++) {
                add(produced, producerScenario.floor());
                if (runs(Part.PRODUCERS)) {
                    if (withAlone) {
                        add(produced, producerScenario.appendsAlone());
                    }
                    if (oneRelay.contains(RelayContender.RINGBUS_LOG)) {
                        add(produced, producerScenario.appendsAloneInsertOnly());
                    }
                    for (RelayContender contender : oneRelay) {
                        add(produced, producerScenario.run(contender));
                    }
                }
            }
            for (List<ProducerResult> runs : produced.values()) {
                ProducerResult median = ProducerResult.median(runs);
                if (median.producer().equals(ProducerScenario.FLOOR)) {
                    commitFloor = median;
                } else {
                    producerRuns.add(median);
                }
            }
            DrainScenario draining = new DrainScenario(pgUrl, batchSize, timeout, analyze, out);
            if (runs(Part.DRAIN) && warmupBacklog > 0) {
                out.println("  (warm-up, not reported)");
                draining.run(RelayContender.RINGBUS_1, warmupBacklog);
            }
            Map<String, List<DrainResult>> drained = new LinkedHashMap<>();
            for (int round = 0; round < repeats && (runs(Part.FLOOR) || runs(Part.DRAIN)); round++) {
                addDrain(drained, draining.floor(backlog));
                if (runs(Part.DRAIN)) {
                    for (RelayContender contender : contenders) {
                        addDrain(drained, draining.run(contender, backlog));
                    }
                }
            }
            for (List<DrainResult> runs : drained.values()) {
                DrainResult median = DrainResult.median(runs);
                if (median.contender().equals(DrainScenario.FLOOR)) {
                    claimFloor = median;
                } else {
                    drains.add(median);
                }
            }
            if (runs(Part.SUSTAINED)) {
                double sustainedRate = rate != null ? rate : SUSTAINED_FRACTION * commitFloor.commitsPerSecond();
                SustainedScenario scenario = new SustainedScenario(pgUrl, batchSize, warmup, duration, window,
                        producers, timeout, out);
                for (RelayContender contender : oneRelay) {
                    sustained.add(scenario.run(contender, sustainedRate));
                }
            }
            if (only.contains(Part.SEARCH)) {
                RateSearch search = new RateSearch(new SustainedScenario(pgUrl, batchSize, warmup, searchDuration,
                        window, producers, timeout, out), searchSteps, out);
                for (RelayContender contender : oneRelay) {
                    searches.add(search.search(contender, commitFloor.commitsPerSecond()));
                }
            }
            if (runs(Part.HTTP)) {
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
        OutboxReport report = new OutboxReport(commitFloor, claimFloor, producerRuns, drains, sustained, http, searches)
                .judge(rate != null ? "--rate" : String.format(Locale.ROOT, "%.0f %% of the commit floor",
                        SUSTAINED_FRACTION * 100), Runtime.getRuntime().availableProcessors());
        out.println();
        out.print(report.text());
        if (json.requested()) {
            OutboxResults head = new OutboxResults(OutboxResults.SCENARIO, jvm.vm(), jvm.cores(),
                    pgUrl.replaceAll("\\?.*", ""), EventPayload.BYTES, EventPayload.KEYS, batchSize,
                    RelayContender.POLLER_BATCH, SkipLockedPoller.IDLE_MILLIS,
                    new OutboxResults.Gruelbox("4.2.268", GruelboxPeer.WORKERS, GruelboxPeer.FLUSH_BATCH,
                            GruelboxPeer.FLUSH_IDLE_MILLIS, GruelboxPeer.ATTEMPT_FREQUENCY.toSeconds(),
                            RelayContender.GRUELBOX.keepsKeyOrder()),
                    new OutboxResults.Namastack("1.6.0", "4.0.6", NamastackPeer.POLL_INTERVAL_MILLIS,
                            NamastackPeer.BATCH_KEYS, NamastackPeer.CORE_THREADS, NamastackPeer.MAX_THREADS,
                            RelayContender.NAMASTACK.keepsKeyOrder()),
                    producers, repeats, producerWarmup.toNanos() / 1e9, warmup.toNanos() / 1e9, window.toNanos() / 1e9,
                    null, List.of(), List.of(), List.of(), List.of(), List.of(), List.of());
            json.write(report.document(head), out);
        }
        if (!report.passed()) {
            System.err.println("FAILED: see the FAILED lines above");
            return 2;
        }
        return 0;
    }

    private static void add(Map<String, List<ProducerResult>> runs, ProducerResult run) {
        runs.computeIfAbsent(run.producer(), k -> new ArrayList<>()).add(run);
    }

    private static void addDrain(Map<String, List<DrainResult>> runs, DrainResult run) {
        runs.computeIfAbsent(run.contender(), k -> new ArrayList<>()).add(run);
    }

    private boolean runs(Part part) {
        return only.contains(Part.ALL) || only.contains(part);
    }

    private List<int[]> validate() {
        if (!pgUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("pg-url must start with jdbc:postgresql: pg-url=" + pgUrl);
        }
        positive("backlog", backlog);
        positive("repeats", repeats);
        positive("http-events", httpEvents);
        positive("producers", producers);
        positive("search-steps", searchSteps);
        if (only.isEmpty() || contenders.isEmpty()) {
            throw new IllegalArgumentException("--only and --contenders need at least one value: only=" + only
                    + ", contenders=" + contenders);
        }
        if (warmupBacklog < 0 || httpWarmupEvents < 0) {
            throw new IllegalArgumentException("warm-up sizes must be >= 0: warmup-backlog=" + warmupBacklog
                    + ", http-warmup-events=" + httpWarmupEvents);
        }
        if (batchSize < 1 || batchSize > io.ringbus.outbox.RelayBuilder.MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batch-size must be in [1, " + io.ringbus.outbox.RelayBuilder.MAX_BATCH_SIZE
                    + "]: batch-size=" + batchSize);
        }
        if (rate != null && !(rate > 0 && rate <= 100_000)) {
            throw new IllegalArgumentException("rate must be in (0, 100000]: rate=" + rate);
        }
        for (Duration d : List.of(duration, window, producerDuration)) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("duration, window and producer-duration must be positive: duration="
                        + duration + ", window=" + window + ", producer-duration=" + producerDuration);
            }
        }
        if (warmup.isNegative() || producerWarmup.isNegative()) {
            throw new IllegalArgumentException("warm-ups must be >= 0: warmup=" + warmup + ", producer-warmup="
                    + producerWarmup);
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
