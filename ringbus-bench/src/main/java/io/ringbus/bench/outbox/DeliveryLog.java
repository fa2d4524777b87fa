package io.ringbus.bench.outbox;

import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * When each event of one run was committed and first delivered, by sequence number, on this
 * JVM's {@link System#nanoTime()} clock: the producer records the instant its {@code commit()}
 * returned, the subscriber the instant it handled the event. Also each event's row id and the
 * order of first deliveries, so that per-key order can be checked after the run: rows of a key
 * must be delivered in id order.
 *
 * <p>Threading: {@link #appended} and {@link #committed} from any producer thread (each sequence
 * by one thread); {@link #delivered} from one thread at a time (the broker subscription's event
 * loop, or the HTTP endpoint under a lock). Read the instants only after {@link #awaitDistinct}
 * saw everything and the producers were joined: the counter's update orders the writes before the
 * reads.
 */
final class DeliveryLog {
    private final long[] commitNanos;
    private final long[] startNanos;
    private final long[] deliveredNanos;
    private final long[] ids;
    private final int[] deliveryOrder;
    private final int[] deliveries;
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong distinct = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong strangers = new AtomicLong();

    /**
     * @param events how many events the run may append, sequence numbers 0 to {@code events - 1}
     */
    DeliveryLog(int events) {
        if (events < 1) {
            throw new IllegalArgumentException("a run needs at least one event: events=" + events);
        }
        commitNanos = new long[events];
        startNanos = new long[events];
        deliveredNanos = new long[events];
        ids = new long[events];
        deliveryOrder = new int[events];
        deliveries = new int[events];
    }

    /** @return how many events the run may append */
    int events() {
        return deliveries.length;
    }

    /** Records the row id that the append of {@code sequence} returned. */
    void appended(int sequence, long id) {
        ids[sequence] = id;
    }

    /** Records that the transaction holding {@code sequence} began its append at {@code nanos}. */
    void started(int sequence, long nanos) {
        startNanos[sequence] = nanos;
    }

    /** Records that the transaction holding {@code sequence} committed at {@code nanos}. */
    void committed(int sequence, long nanos) {
        commitNanos[sequence] = nanos;
        committed.incrementAndGet();
    }

    /** @return transactions recorded as committed so far */
    long committedCount() {
        return committed.get();
    }

    /** @return events committed and not delivered yet (0 when deliveries ran ahead of the commit records) */
    long backlog() {
        return Math.max(0, committed.get() - distinct.get());
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
            deliveryOrder[(int) distinct.get()] = index;
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
     * @return the earliest first-delivery instant among those delivered (0 when none was)
     */
    long firstDeliveryNanos(int from, int to) {
        long first = 0;
        boolean any = false;
        for (int i = from; i < to; i++) {
            if (deliveries[i] > 0 && (!any || deliveredNanos[i] - first < 0)) {
                first = deliveredNanos[i];
                any = true;
            }
        }
        return first;
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
     * wakes on an in-process append, before the commit returns); such events count as 0.
     *
     * @param from first sequence, inclusive
     * @param to   last sequence, exclusive
     * @return the histogram, values up to one hour
     */
    Histogram latencyMicros(int from, int to) {
        return latencyMicrosByWindow(from, to, 0, Long.MAX_VALUE, 1)[0];
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
    /**
     * Counts deliveries that broke per-key order: walking the first deliveries in the order they
     * happened, a row whose id is below an id already delivered for its key (the key of sequence
     * {@code s} is {@link EventPayload#keyIndex(int)}). Call after the run.
     *
     * @return rows delivered after a later row of their key
     */
    long keyOrderViolations() {
        long[] lastId = new long[EventPayload.KEYS];
        java.util.Arrays.fill(lastId, Long.MIN_VALUE);
        long violations = 0;
        long delivered = distinct.get();
        for (int rank = 0; rank < delivered; rank++) {
            int sequence = deliveryOrder[rank];
            int key = EventPayload.keyIndex(sequence);
            if (ids[sequence] < lastId[key]) {
                violations++;
            } else {
                lastId[key] = ids[sequence];
            }
        }
        return violations;
    }

    /**
     * Counts deliveries that broke per-key commit order, for relays that promise the order of
     * commits rather than of ids (a WAL relay on an insert-only table, whose appends take no lock):
     * walking the first deliveries in the order they happened, a row of a key is late when a row of
     * that key delivered before it began its append after this row's commit had returned. Rows
     * without a recorded start (a backlog filled by one thread, in id order) are checked by id.
     *
     * @return rows delivered after a row of their key that was appended after their commit
     */
    long commitOrderViolations() {
        long[] latestStart = new long[EventPayload.KEYS];
        long[] lastId = new long[EventPayload.KEYS];
        java.util.Arrays.fill(latestStart, Long.MIN_VALUE);
        java.util.Arrays.fill(lastId, Long.MIN_VALUE);
        long violations = 0;
        long delivered = distinct.get();
        for (int rank = 0; rank < delivered; rank++) {
            int sequence = deliveryOrder[rank];
            int key = EventPayload.keyIndex(sequence);
            if (startNanos[sequence] == 0) {
                if (ids[sequence] < lastId[key]) {
                    violations++;
                }
                lastId[key] = Math.max(lastId[key], ids[sequence]);
                continue;
            }
            if (latestStart[key] != Long.MIN_VALUE && latestStart[key] - commitNanos[sequence] > 0) {
                violations++;
            }
            latestStart[key] = latestStart[key] == Long.MIN_VALUE ? startNanos[sequence]
                    : Math.max(latestStart[key], startNanos[sequence]);
        }
        return violations;
    }

    /**
     * @param from     first sequence, inclusive
     * @param to       last sequence, exclusive
     * @param fromNanos start of the interval, inclusive
     * @param toNanos   end of the interval, exclusive
     * @return commits of events in {@code [from, to)} recorded within the interval
     */
    long commitsBetween(int from, int to, long fromNanos, long toNanos) {
        long count = 0;
        for (int i = from; i < to; i++) {
            if (commitNanos[i] - fromNanos >= 0 && commitNanos[i] - toNanos < 0) {
                count++;
            }
        }
        return count;
    }

    /**
     * Commit-to-delivery latency of the delivered events in {@code [from, to)}, one histogram per
     * window of their commit instant: window {@code w} holds commits in
     * {@code [origin + w x window, origin + (w + 1) x window)}; earlier commits go to window 0, later
     * ones to the last.
     *
     * @param from        first sequence, inclusive
     * @param to          last sequence, exclusive
     * @param originNanos the start of window 0
     * @param windowNanos the window length
     * @param windows     how many windows
     * @return the histograms, values in microseconds
     */
    Histogram[] latencyMicrosByWindow(int from, int to, long originNanos, long windowNanos, int windows) {
        Histogram[] histograms = new Histogram[windows];
        for (int w = 0; w < windows; w++) {
            histograms[w] = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
        }
        for (int i = from; i < to; i++) {
            if (deliveries[i] > 0) {
                int w = (int) Math.min(windows - 1, Math.max(0, (commitNanos[i] - originNanos) / windowNanos));
                long micros = (deliveredNanos[i] - commitNanos[i]) / 1_000;
                histograms[w].recordValue(Math.min(Math.max(micros, 0), histograms[w].getHighestTrackableValue()));
            }
        }
        return histograms;
    }
}
