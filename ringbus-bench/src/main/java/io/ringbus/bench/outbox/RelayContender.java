package io.ringbus.bench.outbox;

import io.ringbus.outbox.OutboxSink;
import io.ringbus.outbox.Relay;
import io.ringbus.outbox.RelayStats;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * What delivers the events in a run: ringbus relays (1, 2 or 4 separate {@link Relay}s on one
 * outbox, in this JVM), whose producers append through the outbox; the 60-line
 * {@link SkipLockedPoller}, whose producers insert into its plain table; or a peer library a user
 * would pick instead, {@link GruelboxPeer} or {@link NamastackPeer}, whose producers schedule through
 * its own API into its own tables. All deliver to the same sink.
 */
enum RelayContender {
    /** One ringbus {@link Relay}. */
    RINGBUS_1("ringbus relay x1", 1),
    /** Two ringbus relays on one outbox. */
    RINGBUS_2("ringbus relay x2", 2),
    /** Four ringbus relays on one outbox. */
    RINGBUS_4("ringbus relay x4", 4),
    /**
     * One ringbus relay in WAL mode ({@link io.ringbus.outbox.RelayBuilder#wal}): committed rows from
     * a logical replication slot, created before the run's appends so that it streams them.
     */
    RINGBUS_WAL("ringbus WAL relay", 1),
    /**
     * One ringbus WAL relay on an insert-only table ({@link io.ringbus.outbox.OutboxBuilder#insertOnly}):
     * appends without a key lock, nothing updated or deleted per row, passed partitions truncated.
     */
    RINGBUS_LOG("ringbus WAL relay, insert-only", 1),
    /** {@link SkipLockedPoller}: DELETE ... SKIP LOCKED ... RETURNING, 1,000 rows a poll. */
    POLLER("60-line poller x1", 1),
    /** {@link GruelboxPeer}: gruelbox transaction-outbox 4.2.268. */
    GRUELBOX("gruelbox 4.2.268", 1),
    /** {@link NamastackPeer}: namastack-outbox 1.6.0 in Spring Boot. */
    NAMASTACK("namastack 1.6.0", 1);

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
        return this != POLLER && this != GRUELBOX;
    }

    /**
     * @param deliveries a run's log
     * @return rows delivered out of the order this contender promises per key: commit order for
     * the insert-only WAL relay (its appends take no lock, so a key's ids need not follow its
     * commits), id order (which the append's lock makes commit order) for the others
     */
    long keyOrderViolations(DeliveryLog deliveries) {
        return this == RINGBUS_LOG ? deliveries.commitOrderViolations() : deliveries.keyOrderViolations();
    }

    /**
     * @param label a {@link #label()}
     * @return whether the contender of that label promises per-key order ({@code true} for other labels)
     */
    static boolean keepsKeyOrder(String label) {
        for (RelayContender c : values()) {
            if (c.label.equals(label)) {
                return c.keepsKeyOrder();
            }
        }
        return true;
    }

    /**
     * @param db the run's database
     * @return what its producers commit with: the outbox's append or a plain insert into the poller's
     * table in a JDBC transaction, or the peer's own scheduling call in its own transaction API
     */
    Appender appender(BenchOutbox db) {
        return switch (this) {
            case POLLER -> Appender.jdbc(db.outbox().dataSource(), db.plain());
            case GRUELBOX -> db.gruelbox().appender();
            case NAMASTACK -> db.namastack().appender();
            case RINGBUS_LOG -> Appender.jdbc(db.log().dataSource(), RowWriter.outbox(db.log()));
            default -> Appender.jdbc(db.outbox().dataSource(), RowWriter.outbox(db.outbox()));
        };
    }

    /**
     * Called before the run's appends: the WAL relay's slot is created then (a relay started and
     * stopped), so that the appends are in its stream rather than in a catch-up read of the table.
     *
     * @param db the run's database
     */
    void prepare(BenchOutbox db) {
        if (this == RINGBUS_WAL || this == RINGBUS_LOG) {
            Relay relay = walRelay(db, new OutboxSink() {
                @Override
                public String name() {
                    return "none";
                }

                @Override
                public int maxConcurrency() {
                    return 1;
                }

                @Override
                public java.util.concurrent.CompletionStage<?> deliver(io.ringbus.outbox.OutboxEvent event) {
                    throw new IllegalStateException("the slot is created on an empty table: " + event);
                }
            }, 1_000);
            // Closing at once could stop the relay before it made the slot: the run's relay would
            // then make it and read the backlog by a catch-up query instead of from the stream.
            awaitSlot(db, this == RINGBUS_LOG ? db.logSlot() : db.walSlot(),
                    db.schema() + "." + (this == RINGBUS_LOG ? BenchOutbox.LOG_TABLE : BenchOutbox.TABLE) + "_wal");
            relay.close(Duration.ofSeconds(30));
        }
    }

    /** Waits until the WAL relay made its slot and recorded its (empty) catch-up as done. */
    private static void awaitSlot(BenchOutbox db, String slot, String caughtUpTable) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (java.sql.Connection c = db.outbox().dataSource().getConnection()) {
            c.setAutoCommit(true);
            while (System.nanoTime() - deadline < 0) {
                try (java.sql.PreparedStatement find = c.prepareStatement("SELECT caught_up FROM " + caughtUpTable
                        + " WHERE slot = ?")) {
                    find.setString(1, slot);
                    try (java.sql.ResultSet rs = find.executeQuery()) {
                        if (rs.next() && rs.getBoolean(1)) {
                            return;
                        }
                    }
                } catch (SQLException e) {
                    if (!"42P01".equals(e.getSQLState())) { // the relay has not made the table yet
                        throw e;
                    }
                }
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read " + caughtUpTable, e);
        }
        throw new IllegalStateException("the WAL relay made no slot " + slot + " within 30 s");
    }

    private Relay walRelay(BenchOutbox db, OutboxSink sink, int batchSize) {
        if (this == RINGBUS_LOG) {
            return db.log().relay().name("bench-log").sink(sink).batchSize(batchSize).wal(db.logSlot()).start();
        }
        return db.outbox().relay().name("bench-wal").sink(sink).batchSize(batchSize).wal(db.walSlot()).start();
    }

    /**
     * Called after a drain's backlog is written, before its clock starts: gruelbox takes work
     * committed while no worker ran only once its {@code attemptFrequency} has passed.
     *
     * @param db the run's database
     */
    void awaitBacklogDue(BenchOutbox db) {
        if (this == GRUELBOX) {
            db.gruelbox().awaitBacklogDue();
        }
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
                    POLLER_BATCH), null, List.of());
        }
        if (this == GRUELBOX || this == NAMASTACK) {
            PeerRelay peer = this == GRUELBOX ? db.gruelbox().start(sink) : db.namastack().start(sink);
            return new Running(this, db, null, peer, List.of());
        }
        if (this == RINGBUS_WAL || this == RINGBUS_LOG) {
            return new Running(this, db, null, null, List.of(walRelay(db, sink, batchSize)));
        }
        List<Relay> started = new ArrayList<>(relays);
        for (int i = 0; i < relays; i++) {
            started.add(db.outbox().relay().name("bench-" + i).sink(sink).batchSize(batchSize).start());
        }
        return new Running(this, db, null, null, started);
    }

    /** @return the batch size this contender claims with, given the ringbus setting */
    int batchSize(int ringbusBatchSize) {
        return switch (this) {
            case POLLER -> POLLER_BATCH;
            case GRUELBOX -> GruelboxPeer.FLUSH_BATCH;
            case NAMASTACK -> NamastackPeer.BATCH_KEYS;
            default -> ringbusBatchSize;
        };
    }

    /** Relays of one run, started. */
    static final class Running implements AutoCloseable {
        private final RelayContender contender;
        private final BenchOutbox db;
        private final SkipLockedPoller poller;
        private final PeerRelay peer;
        private final List<Relay> relays;

        private Running(RelayContender contender, BenchOutbox db, SkipLockedPoller poller, PeerRelay peer,
                        List<Relay> relays) {
            this.contender = contender;
            this.db = db;
            this.poller = poller;
            this.peer = peer;
            this.relays = relays;
        }

        /** @return batches claimed (-1 when the peer does not say) */
        long batches() {
            if (poller != null) {
                return poller.batches();
            }
            if (peer != null) {
                return peer.batches();
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
            if (peer != null) {
                return peer.failures();
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
            if (contender == RINGBUS_LOG) {
                return 0; // an insert-only table cannot tell; the delivery log has every event
            }
            if (peer == null) {
                return db.awaitNothingPending(timeout, poller != null);
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            long pending = peer.pending();
            while (pending > 0 && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
                pending = peer.pending();
            }
            return pending;
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
            long reordered = contender.keepsKeyOrder() ? contender.keyOrderViolations(deliveries) : 0;
            return reordered == 0 ? null : reordered + " rows delivered after a later row of their key";
        }

        /** Stops every relay after its current batch. */
        @Override
        public void close() {
            if (poller != null) {
                poller.close();
            }
            if (peer != null) {
                peer.close();
            }
            for (Relay relay : relays) {
                relay.close(Duration.ofSeconds(30));
            }
        }
    }
}
