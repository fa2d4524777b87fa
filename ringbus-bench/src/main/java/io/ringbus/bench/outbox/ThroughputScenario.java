package io.ringbus.bench.outbox;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;

/**
 * Throughput: append a keyed backlog with no relay running, then start the contender and time
 * the drain from its start to the last event's first delivery at the subscriber.
 */
final class ThroughputScenario {
    private final String pgUrl;
    private final int batchSize;
    private final Duration timeout;
    private final PrintStream log;

    /**
     * @param pgUrl     the PostgreSQL URL
     * @param batchSize rows per claim for the ringbus relays
     * @param timeout   longest a drain may take
     * @param log       progress lines
     */
    ThroughputScenario(String pgUrl, int batchSize, Duration timeout, PrintStream log) {
        this.pgUrl = pgUrl;
        this.batchSize = batchSize;
        this.timeout = timeout;
        this.log = log;
    }

    /**
     * @param contender who relays
     * @param events    backlog size
     * @return the result (failed runs are results too, with a failure)
     * @throws SQLException         when PostgreSQL fails outside the contender
     * @throws InterruptedException when interrupted
     */
    ThroughputResult run(RelayContender contender, int events) throws SQLException, InterruptedException {
        try (BenchOutbox db = BenchOutbox.create(pgUrl)) {
            long fillNanos = BacklogFiller.fill(db.outbox(), events, true);
            DeliveryLog deliveries = new DeliveryLog(events);
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
                    pendingAfter = db.awaitNothingPending(Duration.ofSeconds(10));
                    batches = running.batches();
                    if (failure == null) {
                        failure = running.failures();
                    }
                }
            }
            long last = deliveries.lastDeliveryNanos(0, events);
            double seconds = (last - start) / 1e9;
            if (failure == null && pendingAfter != 0) {
                failure = pendingAfter + " rows still pending after every event was delivered";
            }
            if (failure == null && deliveries.strangers() != 0) {
                failure = deliveries.strangers() + " deliveries of unknown events";
            }
            ThroughputResult result = new ThroughputResult(contender.label(), contender.relays(),
                    contender.batchSize(batchSize), events, fillNanos / 1e9, seconds,
                    deliveries.distinct() / seconds, deliveries.distinct(), deliveries.duplicates(), pendingAfter,
                    batches, failure);
            log.printf(Locale.ROOT, "  throughput %-22s backlog %,9d  fill %6.1f s  drain %7.2f s  %,10.0f events/s%s%n",
                    result.contender(), events, result.fillSeconds(), seconds, result.eventsPerSecond(),
                    failure == null ? "" : "  FAILED: " + failure);
            return result;
        }
    }
}
