package io.ringbus.outbox.internal;

import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.OutboxSink;
import io.ringbus.outbox.SinkStats;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Bounds one sink's deliveries in flight without a thread per delivery: a delivery starts when a
 * slot is free, otherwise it waits in a queue (bounded by the relay's batch size) and starts when
 * a running one completes. Draining is serialised by a work-in-progress counter so that sinks that
 * complete inline start the next delivery in a loop, not by recursion.
 *
 * <p>Each delivery is given up on after the timeout; its slot is then freed even if the sink never
 * completes it (the sink's own timeout should end the call; the built-in sinks have one).
 */
public final class SinkChannel {
    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(24);
    /** The result of every delivery that succeeded at once. */
    private static final CompletableFuture<Throwable> DELIVERED = CompletableFuture.completedFuture(null);

    private final OutboxSink sink;
    private final int maxConcurrency;
    private final long timeoutMillis;
    private final ConcurrentLinkedQueue<Delivery> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger wip = new AtomicInteger();
    private final LongAdder delivered = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder dead = new LongAdder();
    private final ConcurrentHistogram latencyMicros = new ConcurrentHistogram(HIGHEST_MICROS, 3);
    /** Also told each delivery's latency (the relay's meters); set before the relay starts. */
    private LongConsumer latencyListener;

    /**
     * @param sink          the sink
     * @param timeoutMillis how long a delivery may take before it counts as failed
     */
    public SinkChannel(OutboxSink sink, long timeoutMillis) {
        this.sink = sink;
        int max = sink.maxConcurrency();
        if (max < 1) {
            throw new IllegalArgumentException("sink maxConcurrency must be at least 1: sink=" + sink.name()
                    + ", maxConcurrency=" + max);
        }
        this.maxConcurrency = max;
        this.timeoutMillis = timeoutMillis;
    }

    /** @return the sink */
    public OutboxSink sink() {
        return sink;
    }

    /**
     * Queues a delivery; it starts as soon as a slot is free.
     *
     * @param event the row
     * @return completes with {@code null} when delivered, or with the failure (never exceptionally)
     */
    public CompletableFuture<Throwable> submit(OutboxEvent event) {
        // A free slot and nobody queued: start at once. A sink that completes inline (the broker, a
        // synchronous one) is then done here, without the queue or a callback.
        if (waiting.isEmpty()) {
            if (inFlight.incrementAndGet() <= maxConcurrency) {
                CompletableFuture<?> call = call(event);
                if (call.isDone()) {
                    inFlight.decrementAndGet();
                    if (!waiting.isEmpty()) {
                        drain();
                    }
                    Throwable failure = failureOf(call);
                    return failure == null ? DELIVERED : CompletableFuture.completedFuture(failure);
                }
                CompletableFuture<Throwable> result = new CompletableFuture<>();
                whenDone(call, result);
                return result;
            }
            inFlight.decrementAndGet();
        }
        Delivery delivery = new Delivery(event, new CompletableFuture<>());
        queued.incrementAndGet();
        waiting.add(delivery);
        drain();
        return delivery.result;
    }

    private void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            while (inFlight.get() < maxConcurrency) {
                Delivery next = waiting.poll();
                if (next == null) {
                    break;
                }
                queued.decrementAndGet();
                inFlight.incrementAndGet();
                start(next);
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    private void start(Delivery delivery) {
        whenDone(call(delivery.event), delivery.result);
    }

    /** @return the sink's delivery of {@code event}, failed rather than thrown */
    private CompletableFuture<?> call(OutboxEvent event) {
        try {
            CompletionStage<?> stage = sink.deliver(event);
            return stage == null
                    ? CompletableFuture.failedFuture(new IllegalStateException("sink " + sink.name() + " returned null"))
                    : stage.toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Completes {@code result} when {@code call} ends or times out, then frees its slot. */
    private void whenDone(CompletableFuture<?> call, CompletableFuture<Throwable> result) {
        call.orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).whenComplete((ignored, failure) -> {
            inFlight.decrementAndGet();
            result.complete(failure);
            drain();
        });
    }

    /** @return the failure of a completed call, or null when it succeeded */
    private static Throwable failureOf(CompletableFuture<?> call) {
        try {
            call.join();
            return null;
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    /**
     * Also reports every delivery's latency in microseconds to {@code listener}; call before the
     * relay's threads start.
     *
     * @param listener called on the thread that completes the delivery; must not block
     */
    public void latencyListener(LongConsumer listener) {
        this.latencyListener = listener;
    }

    /** Counts a delivery and its latency in microseconds (append to ack). */
    public void recordDelivered(long latencyMicros) {
        delivered.increment();
        latencyMicros(latencyMicros);
        LongConsumer listener = latencyListener;
        if (listener != null) {
            listener.accept(Math.max(latencyMicros, 0));
        }
    }

    /** @return rows delivered */
    public long delivered() {
        return delivered.sum();
    }

    /** @return failed attempts that will be retried */
    public long retried() {
        return retried.sum();
    }

    /** @return rows moved to the dead letters */
    public long deadLettered() {
        return dead.sum();
    }

    private void latencyMicros(long micros) {
        latencyMicros.recordValue(Math.min(Math.max(micros, 0), HIGHEST_MICROS));
    }

    /** Counts a failed attempt that will be retried. */
    public void recordRetried() {
        retried.increment();
    }

    /** Counts a row moved to the dead letters. */
    public void recordDead() {
        dead.increment();
    }

    /** @return a snapshot of the counters */
    public SinkStats stats() {
        return new SinkStats(sink.name(), maxConcurrency, inFlight.get(), queued.get(), delivered.sum(), retried.sum(),
                dead.sum(), latencyMicros.getValueAtPercentile(50), latencyMicros.getValueAtPercentile(99),
                latencyMicros.getMaxValue());
    }

    private record Delivery(OutboxEvent event, CompletableFuture<Throwable> result) {
    }
}
