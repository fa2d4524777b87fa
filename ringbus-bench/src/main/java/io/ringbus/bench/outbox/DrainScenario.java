package io.ringbus.bench.outbox;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;

/**
 * Drain: write a keyed backlog with no relay running, then start the contender and time the
 * drain from its start to the last event's first delivery at the subscriber. The floor is the
 * same backlog in a {@link PlainEventTable} taken by {@link SkipLockedPoller}'s statement in a loop
 * on one connection, {@value #FLOOR_BATCH} rows a transaction, delivering nothing: what
 * PostgreSQL can claim and delete.
 */
final class DrainScenario {
    /** The floor's label. */
    static final String FLOOR = "claim+delete floor";
    /** Rows per floor transaction. */
    static final int FLOOR_BATCH = 1_000;

    private final String pgUrl;
    private final int batchSize;
    private final Duration timeout;
    private final PrintStream log;
    private final boolean analyze;

    /**
     * @param pgUrl     the PostgreSQL URL
     * @param batchSize rows per claim for the ringbus relays
     * @param timeout   longest a drain may take
     * @param analyze   whether the tables are analyzed after the fill (else they have no statistics)
     * @param log       progress lines
     */
    DrainScenario(String pgUrl, int batchSize, Duration timeout, boolean analyze, PrintStream log) {
        this.pgUrl = pgUrl;
        this.batchSize = batchSize;
        this.timeout = timeout;
        this.analyze = analyze;
        this.log = log;
    }

    /**
     * @param contender who relays
     * @param events    backlog size
     * @return the result (failed runs are results too, with a failure)
     * @throws SQLException         when PostgreSQL fails outside the contender
     * @throws InterruptedException when interrupted
     */
    DrainResult run(RelayContender contender, int events) throws SQLException, InterruptedException {
        DeliveryLog deliveries = new DeliveryLog(events);
        try (BenchOutbox db = BenchOutbox.create(pgUrl)) {
            contender.prepare(db);
            long fillNanos = BacklogFiller.fill(contender.appender(db), deliveries, true);
            contender.awaitBacklogDue(db);
            db.beforeDrain(analyze);
            String failure = null;
            long start;
            long batches;
            long pendingAfter;
            try (RecordingBroker broker = new RecordingBroker(deliveries)) {
                start = System.nanoTime();
                try (RelayContender.Running running = contender.start(db, broker.sink(), batchSize)) {
                    if (!deliveries.awaitDistinct(events, timeout.toNanos())) {
                        failure = "timed out after " + timeout.toSeconds() + " s with " + deliveries.distinct() + " of "
                                + events + " delivered";
                    }
                    // Let the last batch settle before stopping, so pendingAfter reflects the relay, not close().
                    pendingAfter = running.awaitNothingPending(Duration.ofSeconds(10));
                    batches = running.batches();
                    failure = failure != null ? failure : running.check(deliveries, pendingAfter);
                }
            }
            double seconds = (deliveries.lastDeliveryNanos(0, events) - start) / 1e9;
            double firstMillis = (deliveries.firstDeliveryNanos(0, events) - start) / 1e6;
            long keyOrder = contender.keyOrderViolations(deliveries);
            DrainResult result = new DrainResult(contender.label(), contender.relays(), contender.batchSize(batchSize),
                    events, fillNanos / 1e9, seconds, firstMillis, deliveries.distinct() / seconds, deliveries.distinct(),
                    deliveries.duplicates(), pendingAfter, batches, keyOrder, 1, deliveries.distinct() / seconds,
                    deliveries.distinct() / seconds, failure);
            print(result);
            return result;
        }
    }

    /**
     * The floor: the backlog in a plain table, taken {@value #FLOOR_BATCH} rows at a time and deleted.
     *
     * @param events backlog size
     * @return the result, with rows deleted as "delivered"
     * @throws SQLException when PostgreSQL fails
     */
    DrainResult floor(int events) throws SQLException {
        try (BenchOutbox db = BenchOutbox.create(pgUrl)) {
            long fillNanos = BacklogFiller.fill(Appender.jdbc(db.outbox().dataSource(), db.plain()), new DeliveryLog(events), true);
            db.beforeDrain(analyze);
            long deleted = 0;
            long batches = 0;
            long firstNanos = 0;
            long start = System.nanoTime();
            try (Connection c = db.outbox().dataSource().getConnection();
                 PreparedStatement take = c.prepareStatement(SkipLockedPoller.takeStatement(db.plain().table(),
                         "subject, msg_key, payload, headers, created_at"))) {
                c.setAutoCommit(false);
                take.setInt(1, FLOOR_BATCH);
                for (int rows = -1; rows != 0; batches++) {
                    rows = 0;
                    try (ResultSet rs = take.executeQuery()) {
                        while (rs.next()) {
                            // Read every column, as a relay must, and drop it.
                            rs.getLong(1);
                            rs.getString(2);
                            rs.getString(3);
                            rs.getBytes(4);
                            rs.getString(5);
                            rs.getTimestamp(6);
                            rows++;
                        }
                    }
                    c.commit();
                    if (batches == 0) {
                        firstNanos = System.nanoTime();
                    }
                    deleted += rows;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            DrainResult result = new DrainResult(FLOOR, 1, FLOOR_BATCH, events, fillNanos / 1e9, seconds,
                    (firstNanos - start) / 1e6, deleted / seconds, deleted, 0, events - deleted, batches - 1, -1, 1, deleted / seconds,
                    deleted / seconds, deleted == events ? null : "deleted " + deleted + " of " + events + " rows");
            print(result);
            return result;
        }
    }

    private void print(DrainResult r) {
        log.printf(Locale.ROOT, "  drain      %-22s backlog %,9d  fill %6.1f s  first %6.1f ms  drain %7.2f s  %,10.0f events/s%s%n",
                r.contender(), r.events(), r.fillSeconds(), r.firstMillis(), r.drainSeconds(), r.eventsPerSecond(),
                r.failure() == null ? "" : "  FAILED: " + r.failure());
    }
}
