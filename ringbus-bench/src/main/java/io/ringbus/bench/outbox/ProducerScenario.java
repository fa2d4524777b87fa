package io.ringbus.bench.outbox;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;

/**
 * Producers at full speed: {@code threads} connections each commit one keyed row per transaction
 * as fast as they can for warm-up plus duration; commits/s over the duration. The floor inserts
 * into a {@link PlainEventTable} with nothing else running; a contender's producers write its rows
 * (outbox appends, or the poller's plain inserts) while it drains them. Afterwards every event
 * must arrive.
 */
final class ProducerScenario {
    /** The floor's label. */
    static final String FLOOR = "plain INSERT, no relay (floor)";
    /** The label of outbox appends with no relay running. */
    static final String APPENDS_ALONE = "ringbus append, no relay";
    /** The label of appends to an insert-only outbox with no relay running. */
    static final String APPENDS_ALONE_INSERT_ONLY = "ringbus append, insert-only, no relay";
    /** Bound on the rate the event log is sized for; producers stop early if they ever reach it. */
    private static final int MAX_COMMITS_PER_SECOND = 50_000;

    private final String pgUrl;
    private final int batchSize;
    private final int threads;
    private final Duration warmup;
    private final Duration duration;
    private final Duration timeout;
    private final PrintStream log;

    /**
     * @param pgUrl     the PostgreSQL URL
     * @param batchSize rows per claim for the ringbus relays
     * @param threads   producer connections
     * @param warmup    producing time not measured
     * @param duration  producing time measured
     * @param timeout   longest to wait for the deliveries after the producers stopped
     * @param log       progress lines
     */
    ProducerScenario(String pgUrl, int batchSize, int threads, Duration warmup, Duration duration, Duration timeout,
                     PrintStream log) {
        this.pgUrl = pgUrl;
        this.batchSize = batchSize;
        this.threads = threads;
        this.warmup = warmup;
        this.duration = duration;
        this.timeout = timeout;
        this.log = log;
    }

    /**
     * @return the commit floor: plain inserts, nothing draining
     * @throws SQLException when PostgreSQL fails
     */
    ProducerResult floor() throws SQLException {
        return withoutRelay(FLOOR, BenchOutbox::plain);
    }

    /**
     * @return outbox appends with nothing draining: what the append costs without the relay's load
     * @throws SQLException when PostgreSQL fails
     */
    ProducerResult appendsAlone() throws SQLException {
        return withoutRelay(APPENDS_ALONE, db -> RowWriter.outbox(db.outbox()));
    }

    /**
     * @return appends to an insert-only outbox with nothing draining
     * @throws SQLException when PostgreSQL fails
     */
    ProducerResult appendsAloneInsertOnly() throws SQLException {
        return withoutRelay(APPENDS_ALONE_INSERT_ONLY, db -> RowWriter.outbox(db.log()));
    }

    private ProducerResult withoutRelay(String label, Function<BenchOutbox, RowWriter> writer) throws SQLException {
        DeliveryLog commits = newLog();
        try (BenchOutbox db = BenchOutbox.create(pgUrl)) {
            Producers.Produced produced = Producers.flatOut(Appender.jdbc(db.outbox().dataSource(), writer.apply(db)), commits, threads,
                    warmup.plus(duration));
            long measured = measured(commits, produced);
            double rate = measured / (duration.toNanos() / 1e9);
            return print(new ProducerResult(label, 0, threads, duration.toNanos() / 1e9, measured, rate,
                    produced.events(), -1, -1, -1, 0, -1, 1, rate, rate, null));
        }
    }

    /**
     * @param contender who relays, draining while its producers run
     * @return the result (failed runs are results too, with a failure)
     * @throws SQLException         when PostgreSQL fails outside the contender
     * @throws InterruptedException when interrupted
     */
    ProducerResult run(RelayContender contender) throws SQLException, InterruptedException {
        DeliveryLog deliveries = newLog();
        String failure;
        Producers.Produced produced;
        long backlogAtEnd;
        long maxBacklog;
        try (BenchOutbox db = BenchOutbox.create(pgUrl); RecordingBroker broker = new RecordingBroker(deliveries);
             RelayContender.Running running = contender.start(db, broker.sink(), batchSize)) {
            BacklogSampler sampler = new BacklogSampler(deliveries);
            try {
                produced = Producers.flatOut(contender.appender(db), deliveries, threads,
                        warmup.plus(duration));
                backlogAtEnd = deliveries.backlog();
            } finally {
                sampler.close();
            }
            maxBacklog = sampler.maxBetween(produced.startNanos(), System.nanoTime());
            failure = deliveries.awaitDistinct(produced.events(), timeout.toNanos()) ? null
                    : "timed out " + timeout.toSeconds() + " s after the producers stopped with " + deliveries.distinct()
                            + " of " + produced.events() + " delivered";
            long pendingAfter = running.awaitNothingPending(Duration.ofSeconds(10));
            failure = failure != null ? failure : running.check(deliveries, pendingAfter);
        }
        long commits = measured(deliveries, produced);
        double rate = commits / (duration.toNanos() / 1e9);
        return print(new ProducerResult(contender.label(), contender.relays(), threads, duration.toNanos() / 1e9, commits,
                rate, produced.events(), backlogAtEnd, maxBacklog, deliveries.distinct(), deliveries.duplicates(),
                contender.keyOrderViolations(deliveries), 1, rate, rate, failure));
    }

    private DeliveryLog newLog() {
        return new DeliveryLog((int) Math.min(Integer.MAX_VALUE - 8,
                (long) MAX_COMMITS_PER_SECOND * (warmup.plus(duration).toSeconds() + 1)));
    }

    private long measured(DeliveryLog commits, Producers.Produced produced) {
        long from = produced.startNanos() + warmup.toNanos();
        return commits.commitsBetween(0, produced.events(), from, from + duration.toNanos());
    }

    private ProducerResult print(ProducerResult r) {
        log.printf(Locale.ROOT, "  producers  %-32s %d x %4.1f s  %,8.0f commits/s%s%s%n", r.producer(), r.threads(),
                r.seconds(), r.commitsPerSecond(), r.relays() == 0 ? "" : String.format(Locale.ROOT,
                        "  backlog at end %,d", r.backlogAtEnd()), r.failure() == null ? "" : "  FAILED: " + r.failure());
        return r;
    }
}
