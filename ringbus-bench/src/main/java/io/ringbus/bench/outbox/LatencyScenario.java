package io.ringbus.bench.outbox;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;

/**
 * Latency: with the contender running and idle, a {@link PacedProducer} appends at a fixed rate
 * for warm-up plus duration; the histogram holds commit-to-delivery of the events appended after
 * the warm-up.
 */
final class LatencyScenario {
    private final String pgUrl;
    private final int batchSize;
    private final double rate;
    private final Duration warmup;
    private final Duration duration;
    private final int producers;
    private final Duration timeout;
    private final PrintStream log;

    /**
     * @param pgUrl     the PostgreSQL URL
     * @param batchSize rows per claim for the ringbus relays
     * @param rate      appends per second
     * @param warmup    appending time not measured
     * @param duration  appending time measured
     * @param producers connections appending at once
     * @param timeout   longest to wait for the deliveries after the last append
     * @param log       progress lines
     */
    LatencyScenario(String pgUrl, int batchSize, double rate, Duration warmup, Duration duration, int producers,
                    Duration timeout, PrintStream log) {
        this.pgUrl = pgUrl;
        this.batchSize = batchSize;
        this.rate = rate;
        this.warmup = warmup;
        this.duration = duration;
        this.producers = producers;
        this.timeout = timeout;
        this.log = log;
    }

    /**
     * @param contender who relays
     * @return the result (failed runs are results too, with a failure)
     * @throws SQLException         when PostgreSQL fails outside the contender
     * @throws InterruptedException when interrupted
     */
    LatencyResult run(RelayContender contender) throws SQLException, InterruptedException {
        int warmupEvents = (int) Math.round(rate * warmup.toNanos() / 1e9);
        int measured = (int) Math.max(1, Math.round(rate * duration.toNanos() / 1e9));
        int events = warmupEvents + measured;
        DeliveryLog deliveries = new DeliveryLog(events);
        String failure;
        try (BenchOutbox db = BenchOutbox.create(pgUrl); RecordingBroker broker = new RecordingBroker(deliveries)) {
            try (RelayContender.Running running = contender.start(db, broker.sink(), batchSize)) {
                PacedProducer.run(db.outbox(), deliveries, rate, producers);
                failure = deliveries.awaitDistinct(events, timeout.toNanos()) ? running.failures()
                        : "timed out " + timeout.toSeconds() + " s after the last append with " + deliveries.distinct()
                                + " of " + events + " delivered";
            }
        }
        Histogram latency = deliveries.latencyMicros(warmupEvents, events);
        long span = deliveries.commitSpanNanos(warmupEvents, events);
        double achieved = measured <= 1 || span <= 0 ? rate : (measured - 1) / (span / 1e9);
        long missing = events - deliveries.distinct();
        if (failure == null && deliveries.strangers() != 0) {
            failure = deliveries.strangers() + " deliveries of unknown events";
        }
        LatencyResult result = new LatencyResult(contender.label(), contender.relays(), rate, achieved, measured,
                latency.getValueAtPercentile(50), latency.getValueAtPercentile(99), latency.getValueAtPercentile(99.9),
                latency.getMaxValue(), deliveries.deliveredBeforeCommitReturned(warmupEvents, events),
                deliveries.duplicates(), missing, failure);
        log.printf(Locale.ROOT, "  latency    %-22s %,6.0f/s  p50 %8.1f ms  p99 %8.1f ms  max %8.1f ms%s%n",
                result.contender(), achieved, result.p50Micros() / 1e3, result.p99Micros() / 1e3,
                result.maxMicros() / 1e3, failure == null ? "" : "  FAILED: " + failure);
        return result;
    }
}
