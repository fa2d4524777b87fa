package io.ringbus.bench.outbox;

import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * When each event of one run was committed and first delivered, by sequence number, on this
 * JVM's {@link System#nanoTime()} clock: the producer records the instant its {@code commit()}
 * returned, the subscriber the instant it handled the event.
 *
 * <p>Threading: {@link #committed} from any producer thread (each sequence by one thread);
 * {@link #delivered} from one thread at a time (the broker subscription's event loop, or the
 * HTTP endpoint under a lock). Read the instants only after {@link #awaitDistinct} saw everything
 * and the producers were joined: the counter's update orders the writes before the reads.
 */
final class DeliveryLog {
    private final long[] commitNanos;
    private final long[] deliveredNanos;
    private final int[] deliveries;
    private final AtomicLong distinct = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong strangers = new AtomicLong();

    /**
     * @param events how many events the run appends, sequence numbers 0 to {@code events - 1}
     */
    DeliveryLog(int events) {
        if (events < 1) {
            throw new IllegalArgumentException("a run needs at least one event: events=" + events);
        }
        commitNanos = new long[events];
        deliveredNanos = new long[events];
        deliveries = new int[events];
    }

    /** @return how many events the run appends */
    int events() {
        return deliveries.length;
    }

    /** Records that the transaction holding {@code sequence} committed at {@code nanos}. */
    void committed(int sequence, long nanos) {
        commitNanos[sequence] = nanos;
    }

    /**
     * Records a delivery; the first one of a sequence counts, later ones are duplicates.
     *
     * @param sequence the sequence number read from the payload
     * @param nanos    when it was handled
     */
    void delivered(long sequence, long nanos) {
        if (sequence < 0 || sequence >= deliveries.length) {
            strangers.incrementAndGet();
            return;
        }
        int index = (int) sequence;
        if (deliveries[index]++ == 0) {
            deliveredNanos[index] = nanos;
            distinct.incrementAndGet();
        } else {
            duplicates.incrementAndGet();
        }
    }

    /** @return events delivered at least once */
    long distinct() {
        return distinct.get();
    }

    /** @return deliveries beyond the first of an event */
    long duplicates() {
        return duplicates.get();
    }

    /** @return deliveries whose payload named no event of this run */
    long strangers() {
        return strangers.get();
    }

    /**
     * Waits until {@code count} distinct events were delivered.
     *
     * @param count         how many
     * @param timeoutNanos  how long to wait
     * @return whether they were
     */
    boolean awaitDistinct(long count, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (distinct.get() < count) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        return true;
    }

    /**
     * @param from first sequence, inclusive
     * @param to   last sequence, exclusive
     * @return the latest first-delivery instant among those delivered (0 when none was)
     */
    long lastDeliveryNanos(int from, int to) {
        long last = 0;
        boolean any = false;
        for (int i = from; i < to; i++) {
            if (deliveries[i] > 0 && (!any || deliveredNanos[i] - last > 0)) {
                last = deliveredNanos[i];
                any = true;
            }
        }
        return last;
    }

    /**
     * @param from first sequence, inclusive
     * @param to   last sequence, exclusive
     * @return time from the first to the last commit among them
     */
    long commitSpanNanos(int from, int to) {
        long first = commitNanos[from];
        long last = commitNanos[from];
        for (int i = from + 1; i < to; i++) {
            if (commitNanos[i] - first < 0) {
                first = commitNanos[i];
            }
            if (commitNanos[i] - last > 0) {
                last = commitNanos[i];
            }
        }
        return last - first;
    }

    /**
     * Commit-to-delivery latency of the delivered events in {@code [from, to)}, in microseconds. A
     * delivery can be seen before the producer thread returns from {@code commit()} (the relay
     * wakes on the NOTIFY sent at commit); such events count as 0.
     *
     * @param from first sequence, inclusive
     * @param to   last sequence, exclusive
     * @return the histogram, values up to one hour
     */
    Histogram latencyMicros(int from, int to) {
        Histogram histogram = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
        for (int i = from; i < to; i++) {
            if (deliveries[i] > 0) {
                long micros = (deliveredNanos[i] - commitNanos[i]) / 1_000;
                histogram.recordValue(Math.min(Math.max(micros, 0), histogram.getHighestTrackableValue()));
            }
        }
        return histogram;
    }

    /**
     * @param from first sequence, inclusive
     * @param to   last sequence, exclusive
     * @return events in {@code [from, to)} delivered before their producer's {@code commit()} returned
     */
    long deliveredBeforeCommitReturned(int from, int to) {
        long count = 0;
        for (int i = from; i < to; i++) {
            if (deliveries[i] > 0 && deliveredNanos[i] - commitNanos[i] < 0) {
                count++;
            }
        }
        return count;
    }
}
