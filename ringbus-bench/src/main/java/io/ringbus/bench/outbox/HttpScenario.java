package io.ringbus.bench.outbox;

import io.ringbus.outbox.HttpWebhookSink;
import io.ringbus.outbox.OutboxSink;
import io.ringbus.outbox.Relay;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;

/**
 * Seed 002's HTTP experiment: {@code events} unkeyed rows (SNS publishes in the article carry no
 * ordering) pre-filled, then one ringbus relay delivers them to a {@link SlowHttpEndpoint} through
 * an HTTP sink bounded at {@code maxConcurrency}; the clock runs from the relay's start to the
 * endpoint's last answer and is compared with the ideal {@code events x latency / concurrency}.
 *
 * <p>The relay waits for a whole batch before it settles and claims the next one, so each batch
 * costs at least {@code ceil(batch / concurrency)} latencies: the "wave floor" printed beside the
 * ideal shows what that boundary alone costs.
 */
final class HttpScenario {
    private final String pgUrl;
    private final Duration latency;
    private final Duration timeout;
    private final PrintStream log;

    /**
     * @param pgUrl   the PostgreSQL URL
     * @param latency the endpoint's answer delay
     * @param timeout longest a run may take
     * @param log     progress lines
     */
    HttpScenario(String pgUrl, Duration latency, Duration timeout, PrintStream log) {
        this.pgUrl = pgUrl;
        this.latency = latency;
        this.timeout = timeout;
        this.log = log;
    }

    /** The sink under test: ringbus-outbox's webhook sink. */
    static OutboxSink httpSink(URI uri, int maxConcurrency) {
        return HttpWebhookSink.builder(uri).maxConcurrency(maxConcurrency).build();
    }

    /**
     * @param events         rows
     * @param maxConcurrency the sink's bound
     * @param batchSize      rows per claim
     * @param parallel       batches the relay keeps in flight at once
     * @return the result (failed runs are results too, with a failure)
     * @throws SQLException         when PostgreSQL fails outside the relay
     * @throws IOException          when the endpoint cannot start
     * @throws InterruptedException when interrupted
     */
    HttpResult run(int events, int maxConcurrency, int batchSize, int parallel) throws SQLException, IOException, InterruptedException {
        DeliveryLog answered = new DeliveryLog(events);
        String failure = null;
        long start;
        int peak;
        try (BenchOutbox db = BenchOutbox.create(pgUrl);
             SlowHttpEndpoint endpoint = new SlowHttpEndpoint(latency, answered);
             OutboxSink sink = httpSink(endpoint.uri(), maxConcurrency)) {
            BacklogFiller.fill(Appender.jdbc(db.outbox().dataSource(), RowWriter.outbox(db.outbox())), answered, false);
            start = System.nanoTime();
            try (Relay relay = db.outbox().relay().name("bench-http").sink(sink).batchSize(batchSize)
                    .parallelBatches(parallel).start()) {
                if (!answered.awaitDistinct(events, timeout.toNanos())) {
                    failure = "timed out after " + timeout.toSeconds() + " s with " + answered.distinct() + " of "
                            + events + " answered";
                }
                long pending = db.awaitNothingPending(Duration.ofSeconds(30), false);
                if (failure == null && pending != 0) {
                    failure = pending + " rows still pending after every event was answered";
                }
                if (failure == null && relay.stats().retried() + relay.stats().deadLettered() != 0) {
                    failure = "retried=" + relay.stats().retried() + ", deadLettered=" + relay.stats().deadLettered()
                            + " (" + db.lastErrors(3) + ")";
                }
            }
            peak = endpoint.peakInFlight();
        }
        double elapsed = (answered.lastDeliveryNanos(0, events) - start) / 1e9;
        double latencySeconds = latency.toNanos() / 1e9;
        double ideal = events * latencySeconds / maxConcurrency;
        long fullBatches = events / batchSize;
        int rest = events % batchSize;
        double waves = fullBatches * ceilDiv(batchSize, maxConcurrency) + (rest == 0 ? 0 : ceilDiv(rest, maxConcurrency));
        HttpResult result = new HttpResult(maxConcurrency, batchSize, parallel, events, latency.toMillis(), elapsed,
                ideal, Math.max(ideal, waves * latencySeconds / parallel), peak, answered.duplicates(), failure);
        log.printf(Locale.ROOT, "  http       concurrency %3d batch %,6d x%d  %,6d events  %6.2f s  ideal %5.2f s  x%.2f%s%n",
                maxConcurrency, batchSize, parallel, events, elapsed, ideal, result.ratioToIdeal(),
                failure == null ? "" : "  FAILED: " + failure);
        return result;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
