package io.ringbus.bench.outbox;

import io.ringbus.outbox.OutboxSink;
import io.ringbus.outbox.Relay;
import io.ringbus.outbox.RelayStats;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What delivers the outbox in a run: ringbus relays (1 or 4 in this JVM, sharing the table by
 * {@code SKIP LOCKED}, woken by NOTIFY) or the naive poller of seed 002. All use the same table,
 * the same rows and the same sink.
 */
enum RelayContender {
    /** One ringbus {@link Relay}. */
    RINGBUS_1("ringbus relay x1", 1),
    /** Four ringbus relays on one outbox. */
    RINGBUS_4("ringbus relay x4", 4),
    /** {@link NaivePollingRelay}: every 1 s, the 1,000 oldest pending rows. */
    NAIVE("naive poller 1s x1000", 1);

    /** The seed's scheduler period. */
    static final Duration NAIVE_INTERVAL = Duration.ofSeconds(1);
    /** The seed's batch: the article republishes 1,000 events per tick. */
    static final int NAIVE_BATCH = 1_000;

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

    /** @return relay instances */
    int relays() {
        return relays;
    }

    /**
     * Starts delivering.
     *
     * @param db        the run's outbox
     * @param sink      the destination
     * @param batchSize rows per claim for ringbus relays (the naive poller always takes {@value #NAIVE_BATCH})
     * @return the running relays; close to stop them after their current batch
     */
    Running start(BenchOutbox db, OutboxSink sink, int batchSize) {
        if (this == NAIVE) {
            NaivePollingRelay naive = new NaivePollingRelay(db.outbox().dataSource(), db.table(), sink, NAIVE_BATCH,
                    NAIVE_INTERVAL);
            return new Running(naive, List.of());
        }
        List<Relay> started = new ArrayList<>(relays);
        for (int i = 0; i < relays; i++) {
            started.add(db.outbox().relay().name("bench-" + i).sink(sink).batchSize(batchSize).start());
        }
        return new Running(null, started);
    }

    /** @return the batch size this contender claims with, given the ringbus setting */
    int batchSize(int ringbusBatchSize) {
        return this == NAIVE ? NAIVE_BATCH : ringbusBatchSize;
    }

    /** Relays of one run, started. */
    static final class Running implements AutoCloseable {
        private final NaivePollingRelay naive;
        private final List<Relay> relays;

        private Running(NaivePollingRelay naive, List<Relay> relays) {
            this.naive = naive;
            this.relays = relays;
        }

        /** @return batches claimed (ringbus) or ticks run (naive) */
        long batches() {
            if (naive != null) {
                return naive.ticks();
            }
            long sum = 0;
            for (Relay relay : relays) {
                sum += relay.stats().batches();
            }
            return sum;
        }

        /** @return a description of failures (database errors, failed ticks), or {@code null} */
        String failures() {
            if (naive != null) {
                return naive.failures();
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

        /** Stops every relay after its current batch. */
        @Override
        public void close() {
            if (naive != null) {
                naive.close();
            }
            for (Relay relay : relays) {
                relay.close(Duration.ofSeconds(30));
            }
        }
    }
}
