package io.ringbus.bench.outbox;

import io.ringbus.outbox.OutboxSink;
import io.ringbus.outbox.Relay;
import io.ringbus.outbox.RelayStats;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What delivers the events in a run: ringbus relays (1, 2 or 4 separate {@link Relay}s on one
 * outbox, in this JVM), whose producers append through the outbox; or the 60-line
 * {@link SkipLockedPoller}, whose producers insert into its plain table. All deliver to the same
 * sink.
 */
enum RelayContender {
    /** One ringbus {@link Relay}. */
    RINGBUS_1("ringbus relay x1", 1),
    /** Two ringbus relays on one outbox. */
    RINGBUS_2("ringbus relay x2", 2),
    /** Four ringbus relays on one outbox. */
    RINGBUS_4("ringbus relay x4", 4),
    /** {@link SkipLockedPoller}: DELETE ... SKIP LOCKED ... RETURNING, 1,000 rows a poll. */
    POLLER("60-line poller x1", 1);

    /** The poller's batch. */
    static final int POLLER_BATCH = 1_000;

    private final String label;
    private final int relays;

    RelayContender(String label, int relays) {
        this.label = label;
        this.relays = relays;
    }

    /** @return the name in tables and JSON */
    String label() {
        return label;
    }

    /** @return relay (or poller) instances */
    int relays() {
        return relays;
    }

    /** @return whether it promises per-key order (a reordering then fails the run) */
    boolean keepsKeyOrder() {
        return this != POLLER;
    }

    /**
     * @param db the run's database
     * @return what its producers write with: the outbox's append, or a plain insert into the poller's table
     */
    RowWriter writer(BenchOutbox db) {
        return this == POLLER ? db.plain() : RowWriter.outbox(db.outbox());
    }

    /**
     * Starts delivering.
     *
     * @param db        the run's database
     * @param sink      the destination
     * @param batchSize rows per claim for ringbus relays (the poller always takes {@value #POLLER_BATCH})
     * @return the running relays; close to stop them after their current batch
     */
    Running start(BenchOutbox db, OutboxSink sink, int batchSize) {
        if (this == POLLER) {
            return new Running(this, db, new SkipLockedPoller(db.outbox().dataSource(), db.plain().table(), sink,
                    POLLER_BATCH), List.of());
        }
        List<Relay> started = new ArrayList<>(relays);
        for (int i = 0; i < relays; i++) {
            started.add(db.outbox().relay().name("bench-" + i).sink(sink).batchSize(batchSize).start());
        }
        return new Running(this, db, null, started);
    }

    /** @return the batch size this contender claims with, given the ringbus setting */
    int batchSize(int ringbusBatchSize) {
        return this == POLLER ? POLLER_BATCH : ringbusBatchSize;
    }

    /** Relays of one run, started. */
    static final class Running implements AutoCloseable {
        private final RelayContender contender;
        private final BenchOutbox db;
        private final SkipLockedPoller poller;
        private final List<Relay> relays;

        private Running(RelayContender contender, BenchOutbox db, SkipLockedPoller poller, List<Relay> relays) {
            this.contender = contender;
            this.db = db;
            this.poller = poller;
            this.relays = relays;
        }

        /** @return batches claimed */
        long batches() {
            if (poller != null) {
                return poller.batches();
            }
            long sum = 0;
            for (Relay relay : relays) {
                sum += relay.stats().batches();
            }
            return sum;
        }

        /** @return a description of failures (database errors, failed polls), or {@code null} */
        String failures() {
            if (poller != null) {
                return poller.failures();
            }
            long errors = 0;
            long retried = 0;
            long dead = 0;
            for (Relay relay : relays) {
                RelayStats stats = relay.stats();
                errors += stats.databaseErrors();
                retried += stats.retried();
                dead += stats.deadLettered();
            }
            return errors + retried + dead == 0 ? null
                    : "databaseErrors=" + errors + ", retried=" + retried + ", deadLettered=" + dead;
        }

        /**
         * @param timeout how long to wait
         * @return the rows left to deliver once none is left or the timeout passed
         * @throws SQLException when the database cannot be read
         */
        long awaitNothingPending(Duration timeout) throws SQLException {
            return db.awaitNothingPending(timeout, poller != null);
        }

        /**
         * Checks a run whose events all arrived.
         *
         * @param deliveries   the run's log
         * @param pendingAfter rows left after every event arrived
         * @return why the run fails (relay failures, rows left, unknown events, a reordering where
         * order is promised), or {@code null}
         */
        String check(DeliveryLog deliveries, long pendingAfter) {
            String failures = failures();
            if (failures != null) {
                return failures;
            }
            if (pendingAfter != 0) {
                return pendingAfter + " rows still pending after every event was delivered";
            }
            if (deliveries.strangers() != 0) {
                return deliveries.strangers() + " deliveries of unknown events";
            }
            long reordered = contender.keepsKeyOrder() ? deliveries.keyOrderViolations() : 0;
            return reordered == 0 ? null : reordered + " rows delivered after a later row of their key";
        }

        /** Stops every relay after its current batch. */
        @Override
        public void close() {
            if (poller != null) {
                poller.close();
            }
            for (Relay relay : relays) {
                relay.close(Duration.ofSeconds(30));
            }
        }
    }
}
