package io.ringbus.bench.outbox;

import io.ringbus.bench.TextTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The outbox scenario's tables and results document: the PostgreSQL floor, producers, drain, sustained rate
 * (overall and per window), the HTTP experiment, and the {@link OutboxGoals} verdicts.
 */
final class OutboxReport {
    private final ProducerResult commitFloor;
    private final DrainResult claimFloor;
    private final List<ProducerResult> producers;
    private final List<DrainResult> drain;
    private final List<SustainedResult> sustained;
    private final List<HttpResult> http;
    private final List<RateSearch.Result> search;
    private List<OutboxGoals.Goal> goals = List.of();

    /**
     * @param commitFloor the plain-INSERT commit floor, or {@code null} when not measured
     * @param claimFloor  the claim+delete floor, or {@code null}
     * @param producers   producer runs with a contender draining (may be empty)
     * @param drain       drains, in run order (may be empty)
     * @param sustained   sustained-rate runs (may be empty)
     * @param http        HTTP runs (may be empty)
     * @param search      sustained-rate searches (may be empty)
     */
    OutboxReport(ProducerResult commitFloor, DrainResult claimFloor, List<ProducerResult> producers,
                 List<DrainResult> drain, List<SustainedResult> sustained, List<HttpResult> http,
                 List<RateSearch.Result> search) {
        this.commitFloor = commitFloor;
        this.claimFloor = claimFloor;
        this.producers = List.copyOf(producers);
        this.drain = List.copyOf(drain);
        this.sustained = List.copyOf(sustained);
        this.http = List.copyOf(http);
        this.search = List.copyOf(search);
    }

    /**
     * Judges the goals.
     *
     * @param rateSource how the sustained rate was chosen
     * @param cores      the machine's cores
     * @return this report
     */
    OutboxReport judge(String rateSource, int cores) {
        goals = OutboxGoals.evaluate(this, rateSource, cores);
        return this;
    }

    /** @return the commit floor, or {@code null} */
    ProducerResult commitFloor() {
        return commitFloor;
    }

    /** @return the claim+delete floor, or {@code null} */
    DrainResult claimFloor() {
        return claimFloor;
    }

    /** @return the producer run of that contender, or {@code null} */
    ProducerResult producer(String contender) {
        return producers.stream().filter(r -> r.producer().equals(contender)).findFirst().orElse(null);
    }

    /** @return the drain of that contender, or {@code null} */
    DrainResult drain(String contender) {
        return drain.stream().filter(r -> r.contender().equals(contender)).findFirst().orElse(null);
    }

    /** @return the sustained run of that contender, or {@code null} */
    SustainedResult sustained(String contender) {
        return sustained.stream().filter(r -> r.contender().equals(contender)).findFirst().orElse(null);
    }

    /** @return whether every run verified (goals aside) */
    boolean passed() {
        return (commitFloor == null || commitFloor.verified()) && (claimFloor == null || claimFloor.verified())
                && producers.stream().allMatch(ProducerResult::verified) && drain.stream().allMatch(DrainResult::verified)
                && sustained.stream().allMatch(SustainedResult::verified) && http.stream().allMatch(HttpResult::verified);
    }

    /** @return the tables and the goal lines */
    String text() {
        StringBuilder out = new StringBuilder();
        if (commitFloor != null || claimFloor != null) {
            section(out, "PostgreSQL floor: a plain table (identity primary key, nothing else), same rows");
            TextTable table = new TextTable("floor", "statement", "connections", "seconds", "count", "per second",
                    "min-max");
            if (commitFloor != null) {
                table.row("commit", "INSERT ... RETURNING id; COMMIT", num(commitFloor.threads()),
                        fixed(commitFloor.seconds(), 1), num(commitFloor.commits()),
                        num(Math.round(commitFloor.commitsPerSecond())) + " commits/s",
                        spread(commitFloor.runs(), commitFloor.minPerSecond(), commitFloor.maxPerSecond()));
            }
            if (claimFloor != null) {
                table.row("claim+delete", "DELETE ... WHERE id IN (SELECT ... LIMIT " + claimFloor.batchSize()
                        + " FOR UPDATE SKIP LOCKED) RETURNING; COMMIT", "1", fixed(claimFloor.drainSeconds(), 2),
                        num(claimFloor.delivered()), num(Math.round(claimFloor.eventsPerSecond())) + " rows/s",
                        spread(claimFloor.runs(), claimFloor.minPerSecond(), claimFloor.maxPerSecond()));
            }
            out.append(table.render());
        }
        if (!producers.isEmpty()) {
            section(out, String.format(Locale.ROOT, "producers: median of %d runs each; %d connections, one keyed row"
                    + " per transaction, flat out for %.0f s while the contender drains; vs the commit floor",
                    producers.getFirst().runs(), producers.getFirst().threads(), producers.getFirst().seconds()));
            TextTable table = new TextTable("producers", "relays", "commits/s", "min-max", "vs floor", "events",
                    "max backlog", "backlog at end", "delivered", "dup", "key order", "result");
            for (ProducerResult r : producers) {
                table.row(r.producer(), num(r.relays()), num(Math.round(r.commitsPerSecond())),
                        spread(r.runs(), r.minPerSecond(), r.maxPerSecond()),
                        commitFloor == null ? "-" : fixed(r.commitsPerSecond() / commitFloor.commitsPerSecond(), 2),
                        num(r.events()), count(r.maxBacklog()), count(r.backlogAtEnd()), count(r.delivered()),
                        num(r.duplicates()), keyOrder(r.producer(), r.keyOrder()), result(r.failure()));
            }
            out.append(table.render());
        }
        if (!drain.isEmpty()) {
            section(out, "drain: median of " + drain.getFirst().runs() + " drains each; keyed backlog (" + EventPayload.KEYS + " keys, " + EventPayload.BYTES + " B payloads)"
                    + " written first, then drained into an in-process broker subscriber; events/s = backlog / (relay"
                    + " start -> last first delivery); vs the claim+delete floor");
            DrainResult poller = drain(RelayContender.POLLER.label());
            TextTable table = new TextTable("contender", "relays", "batch", "backlog", "fill s", "first ms", "drain s",
                    "events/s", "min-max", "vs floor", "vs poller", "batches", "dup", "key order", "pending after", "result");
            for (DrainResult r : drain) {
                table.row(r.contender(), num(r.relays()), num(r.batchSize()), num(r.events()), fixed(r.fillSeconds(), 1),
                        fixed(r.firstMillis(), 1), fixed(r.drainSeconds(), 2), num(Math.round(r.eventsPerSecond())),
                        spread(r.runs(), r.minPerSecond(), r.maxPerSecond()),
                        claimFloor == null ? "-" : fixed(r.eventsPerSecond() / claimFloor.eventsPerSecond(), 2),
                        poller == null ? "-" : fixed(r.eventsPerSecond() / poller.eventsPerSecond(), 2),
                        count(r.batches()), num(r.duplicates()), keyOrder(r.contender(), r.keyOrder()),
                        num(r.pendingAfter()), result(r.failure()));
            }
            out.append(table.render());
        }
        if (!sustained.isEmpty()) {
            sustainedTables(out);
        }
        if (!http.isEmpty()) {
            section(out, "http (seed 002): unkeyed backlog -> 1 ringbus relay -> local endpoint answering after "
                    + http.getFirst().latencyMillis() + " ms; ideal = events x latency / concurrency; wave floor ="
                    + " batches x ceil(batch / concurrency) x latency / parallel batches");
            TextTable table = new TextTable("maxConcurrency", "batch", "parallel", "events", "elapsed s", "ideal s",
                    "elapsed/ideal", "wave floor s", "events/s", "peak in flight", "dup", "result");
            for (HttpResult r : http) {
                table.row(num(r.maxConcurrency()), num(r.batchSize()), num(r.parallelBatches()), num(r.events()),
                        fixed(r.elapsedSeconds(), 2), fixed(r.idealSeconds(), 2), fixed(r.ratioToIdeal(), 2),
                        fixed(r.waveSeconds(), 2), num(Math.round(r.eventsPerSecond())), num(r.peakInFlight()),
                        num(r.duplicates()), result(r.failure()));
            }
            out.append(table.render());
        }
        if (!search.isEmpty()) {
            section(out, "sustained-rate search: the highest paced rate at which goal 4 holds (p99, every window, rate"
                    + " held, backlog bound), bisecting 0 .. the commit floor");
            TextTable table = new TextTable("contender", "floor/s", "held/s", "vs floor", "runs (rate/s: held?)");
            for (RateSearch.Result r : search) {
                StringBuilder runs = new StringBuilder();
                for (RateSearch.Step step : r.steps()) {
                    runs.append(runs.isEmpty() ? "" : ", ").append(num(Math.round(step.rate())))
                            .append(step.held() ? ": yes" : ": no");
                }
                table.row(r.contender(), num(Math.round(r.floorPerSecond())), num(Math.round(r.heldRate())),
                        fixed(r.fractionOfFloor(), 2), runs.toString());
            }
            out.append(table.render());
        }
        if (!goals.isEmpty()) {
            out.append('\n');
            for (OutboxGoals.Goal goal : goals) {
                out.append(goal.line()).append('\n');
            }
        }
        return out.toString();
    }

    private void sustainedTables(StringBuilder out) {
        SustainedResult first = sustained.getFirst();
        section(out, String.format(Locale.ROOT, "sustained: paced producers at %,.0f/s, one keyed row per transaction;"
                + " commit() returned -> subscriber handled it, same JVM clock; after the warm-up; backlog = committed,"
                + " not yet delivered, sampled every %d ms", first.targetRate(), BacklogSampler.PERIOD_MILLIS));
        TextTable table = new TextTable("contender", "relays", "target/s", "achieved/s", "events", "p50 ms", "p99 ms",
                "p99.9 ms", "max ms", "worst window p99", "backlog max", "backlog at end", "dup", "missing",
                "key order", "result");
        for (SustainedResult r : sustained) {
            long worst = r.windows().stream().mapToLong(SustainedResult.Window::p99Micros).max().orElse(0);
            table.row(r.contender(), num(r.relays()), num(Math.round(r.targetRate())), num(Math.round(r.achievedRate())),
                    num(r.measuredEvents()), millis(r.p50Micros()), millis(r.p99Micros()), millis(r.p999Micros()),
                    millis(r.maxMicros()), millis(worst), num(r.backlogMax()), num(r.backlogAtEnd()), num(r.duplicates()),
                    num(r.missing()), keyOrder(r.contender(), r.keyOrder()), result(r.failure()));
        }
        out.append(table.render());
        section(out, "sustained, per window of commit time: p99 ms / backlog max");
        List<String> header = new ArrayList<>(List.of("window"));
        sustained.forEach(r -> header.add(r.contender()));
        TextTable windows = new TextTable(header.toArray(String[]::new));
        for (int w = 0; w < first.windows().size(); w++) {
            List<String> row = new ArrayList<>();
            SustainedResult.Window window = first.windows().get(w);
            row.add(String.format(Locale.ROOT, "%.0f s", window.startSeconds()));
            for (SustainedResult r : sustained) {
                SustainedResult.Window mine = r.windows().get(w);
                row.add(millis(mine.p99Micros()) + " / " + num(mine.backlogMax()));
            }
            windows.row(row.toArray(String[]::new));
        }
        out.append(windows.render());
    }

    /**
     * @param head the document with its run description filled in and no results yet
     * @return {@code head} with this report's floor, runs and goals
     */
    OutboxResults document(OutboxResults head) {
        OutboxResults.Floor floor = new OutboxResults.Floor(
                commitFloor == null ? null : commitFloor.threads(), commitFloor == null ? null : commitFloor.seconds(),
                commitFloor == null ? null : commitFloor.commits(),
                commitFloor == null ? null : commitFloor.commitsPerSecond(),
                commitFloor == null ? null : commitFloor.runs(), commitFloor == null ? null : commitFloor.minPerSecond(),
                commitFloor == null ? null : commitFloor.maxPerSecond(),
                claimFloor == null ? null : claimFloor.batchSize(), claimFloor == null ? null : claimFloor.delivered(),
                claimFloor == null ? null : claimFloor.drainSeconds(), claimFloor == null ? null : claimFloor.runs(),
                claimFloor == null ? null : claimFloor.minPerSecond(), claimFloor == null ? null : claimFloor.maxPerSecond(),
                claimFloor == null ? null : claimFloor.eventsPerSecond());
        List<OutboxResults.ProducerRow> producerRows = producers.stream().map(r -> new OutboxResults.ProducerRow(
                r.producer(), r.relays(), r.threads(), r.seconds(), r.commits(), r.commitsPerSecond(), r.events(),
                r.maxBacklog(), r.backlogAtEnd(), r.delivered(), r.duplicates(), r.keyOrder(), r.runs(),
                r.minPerSecond(), r.maxPerSecond(), r.failure() == null, r.failure())).toList();
        List<OutboxResults.DrainRow> drainRows = drain.stream().map(r -> new OutboxResults.DrainRow(r.contender(),
                r.relays(), r.batchSize(), r.events(), r.fillSeconds(), r.drainSeconds(), r.eventsPerSecond(),
                r.delivered(), r.duplicates(), r.pendingAfter(), r.batches(), r.keyOrder(), r.runs(), r.minPerSecond(),
                r.maxPerSecond(), r.failure() == null, r.failure())).toList();
        List<OutboxResults.SustainedRow> sustainedRows = sustained.stream().map(r -> new OutboxResults.SustainedRow(
                r.contender(), r.relays(), r.targetRate(), r.achievedRate(), r.measuredEvents(), r.p50Micros(),
                r.p99Micros(), r.p999Micros(), r.maxMicros(), r.beforeCommit(), r.backlogMax(), r.backlogAtEnd(),
                r.duplicates(), r.missing(), r.keyOrder(), r.windows().stream().map(w -> new OutboxResults.Window(
                        w.startSeconds(), w.events(), w.p99Micros(), w.maxMicros(), w.backlogMax())).toList(),
                r.failure() == null, r.failure())).toList();
        List<OutboxResults.HttpRow> httpRows = http.stream().map(r -> new OutboxResults.HttpRow(r.maxConcurrency(),
                r.batchSize(), r.parallelBatches(), r.events(), r.latencyMillis(), r.elapsedSeconds(), r.idealSeconds(),
                r.ratioToIdeal(), r.waveSeconds(), r.eventsPerSecond(), r.peakInFlight(), r.duplicates(),
                r.failure() == null, r.failure())).toList();
        List<OutboxResults.SearchRow> searchRows = search.stream().map(r -> new OutboxResults.SearchRow(r.contender(),
                r.floorPerSecond(), r.heldRate(), r.fractionOfFloor(), r.steps().stream().map(step ->
                        new OutboxResults.SearchStep(step.rate(), step.held(), step.achievedRate(), step.p99Micros(),
                                step.worstWindowMicros(), step.backlogMax())).toList())).toList();
        List<OutboxResults.GoalRow> goalRows = goals.stream().map(g -> new OutboxResults.GoalRow(g.name(),
                g.statement(), g.met(), g.figures())).toList();
        return new OutboxResults(head.scenario(), head.jvm(), head.cores(), head.database(), head.payloadBytes(),
                head.keys(), head.ringbusBatchSize(), head.pollerBatchSize(), head.pollerIdleMillis(), head.gruelbox(),
                head.namastack(), head.producerThreads(), head.repeats(), head.producerWarmupSeconds(),
                head.sustainedWarmupSeconds(), head.sustainedWindowSeconds(), floor, producerRows, drainRows,
                sustainedRows, httpRows, searchRows, goalRows);
    }

    private static void section(StringBuilder out, String title) {
        out.append(out.isEmpty() ? "" : "\n").append(title).append('\n');
    }

    private static String keyOrder(String contender, long violations) {
        String seen = violations < 0 ? "-" : violations == 0 ? "kept" : num(violations) + " out of order";
        return RelayContender.keepsKeyOrder(contender) ? seen : "not promised, " + seen;
    }

    private static String result(String failure) {
        return failure == null ? "ok" : "FAILED: " + failure;
    }

    private static String spread(int runs, double min, double max) {
        return runs < 2 ? "-" : num(Math.round(min)) + "-" + num(Math.round(max));
    }

    private static String count(long value) {
        return value < 0 ? "-" : num(value);
    }

    private static String num(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String millis(long micros) {
        return fixed(micros / 1e3, 1);
    }
}
