package io.ringbus.outbox.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one relay loop (polling or WAL) counts, summed into its relay's stats by
 * {@link #addTo(long[])}.
 *
 * <p>Threading: written by the loop's thread and its delivery callbacks, read by any thread.
 */
final class LoopCounters {
    final AtomicLong inFlight = new AtomicLong();
    final LongAdder delivered = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder deadLettered = new LongAdder();
    final LongAdder batches = new LongAdder();
    final LongAdder databaseErrors = new LongAdder();

    /** @param totals inFlight, delivered, retried, deadLettered, batches, databaseErrors, added to */
    void addTo(long[] totals) {
        totals[0] += inFlight.get();
        totals[1] += delivered.sum();
        totals[2] += retried.sum();
        totals[3] += deadLettered.sum();
        totals[4] += batches.sum();
        totals[5] += databaseErrors.sum();
    }
}
