package io.ringbus.bench.outbox;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Sustained rate: with the contender running, {@link Producers#paced} appends at a fixed rate for
 * warm-up plus duration; commit-to-delivery of the events after the warm-up, overall and per
 * {@code window} of commit time, so that a latency or backlog that creeps up over a long run shows.
 */
final class SustainedScenario {
    private final String pgUrl;
    private final int batchSize;
    private final Duration warmup;
    private final Duration duration;
    private final Duration window;
    private final int producers;
    private final Duration timeout;
    private final PrintStream log;

    /**
     * @param pgUrl     the PostgreSQL URL
     * @param batchSize rows per claim for the ringbus relays
     * @param warmup    appending time not measured
     * @param duration  appending time measured
     * @param window    length of the windows the measured time is cut into
     * @param producers connections appending at once
     * @param timeout   longest to wait for the deliveries after the last append
     * @param log       progress lines
     */
    SustainedScenario(String pgUrl, int batchSize, Duration warmup, Duration duration, Duration window, int producers,
                      Duration timeout, PrintStream log) {
        this.pgUrl = pgUrl;
        this.batchSize = batchSize;
        this.warmup = warmup;
        this.duration = duration;
        this.window = window;
        this.producers = producers;
        this.timeout = timeout;
        this.log = log;
    }

    /**
     * @param contender who relays
     * @param rate      appends per second
     * @return the result (failed runs are results too, with a failure)
     * @throws SQLException         when PostgreSQL fails outside the contender
     * @throws InterruptedException when interrupted
     */
    SustainedResult run(RelayContender contender, double rate) throws SQLException, InterruptedException {
        int warmupEvents = (int) Math.round(rate * warmup.toNanos() / 1e9);
        int measured = (int) Math.max(1, Math.round(rate * duration.toNanos() / 1e9));
        int events = warmupEvents + measured;
        DeliveryLog deliveries = new DeliveryLog(events);
        int windows = (int) Math.max(1, (duration.toNanos() + window.toNanos() - 1) / window.toNanos());
        long[] windowBacklog = new long[windows];
        String failure;
        long origin;
        long backlogAtEnd;
        try (BenchOutbox db = BenchOutbox.create(pgUrl); RecordingBroker broker = new RecordingBroker(deliveries);
             RelayContender.Running running = contender.start(db, broker.sink(), batchSize)) {
            BacklogSampler sampler = new BacklogSampler(deliveries);
            Producers.Produced produced;
            try {
                produced = Producers.paced(contender.appender(db), deliveries, producers, rate);
                backlogAtEnd = deliveries.backlog();
            } finally {
                sampler.close();
            }
            origin = produced.startNanos() + warmup.toNanos();
            for (int w = 0; w < windows; w++) {
                windowBacklog[w] = sampler.maxBetween(origin + w * window.toNanos(),
                        w == windows - 1 ? System.nanoTime() : origin + (w + 1) * window.toNanos());
            }
            failure = deliveries.awaitDistinct(events, timeout.toNanos()) ? null
                    : "timed out " + timeout.toSeconds() + " s after the last append with " + deliveries.distinct()
                            + " of " + events + " delivered";
            long pendingAfter = running.awaitNothingPending(Duration.ofSeconds(10));
            failure = failure != null ? failure : running.check(deliveries, pendingAfter);
        }
        Histogram latency = deliveries.latencyMicros(warmupEvents, events);
        Histogram[] byWindow = deliveries.latencyMicrosByWindow(warmupEvents, events, origin, window.toNanos(), windows);
        List<SustainedResult.Window> list = new ArrayList<>(windows);
        long backlogMax = 0;
        for (int w = 0; w < windows; w++) {
            list.add(new SustainedResult.Window(w * window.toNanos() / 1e9, byWindow[w].getTotalCount(),
                    byWindow[w].getValueAtPercentile(99), byWindow[w].getMaxValue(), windowBacklog[w]));
            backlogMax = Math.max(backlogMax, windowBacklog[w]);
        }
        long span = deliveries.commitSpanNanos(warmupEvents, events);
        double achieved = measured <= 1 || span <= 0 ? rate : (measured - 1) / (span / 1e9);
        SustainedResult result = new SustainedResult(contender.label(), contender.relays(), rate, achieved, measured,
                latency.getValueAtPercentile(50), latency.getValueAtPercentile(99), latency.getValueAtPercentile(99.9),
                latency.getMaxValue(), deliveries.deliveredBeforeCommitReturned(warmupEvents, events), backlogMax,
                backlogAtEnd, deliveries.duplicates(), events - deliveries.distinct(), contender.keyOrderViolations(deliveries),
                List.copyOf(list), failure);
        log.printf(Locale.ROOT, "  sustained  %-22s %,6.0f/s  p50 %8.1f ms  p99 %8.1f ms  max %8.1f ms  backlog max %,d%s%n",
                result.contender(), achieved, result.p50Micros() / 1e3, result.p99Micros() / 1e3,
                result.maxMicros() / 1e3, backlogMax, failure == null ? "" : "  FAILED: " + failure);
        return result;
    }
}
