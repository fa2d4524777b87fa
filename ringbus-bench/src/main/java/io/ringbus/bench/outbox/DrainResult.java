package io.ringbus.bench.outbox;

import java.util.List;

/**
 * One drain of a pre-filled backlog, or the claim+delete floor (rows taken, nothing delivered), or
 * the median of several.
 *
 * @param contender       who drained
 * @param relays          relay instances
 * @param batchSize       rows per claim
 * @param events          rows in the backlog
 * @param fillSeconds     time to write the backlog (not part of the drain)
 * @param drainSeconds    relay start to the last first delivery (floor: to the last commit)
 * @param firstMillis     relay start to the first delivery (floor: to the first batch's commit)
 * @param eventsPerSecond events / drainSeconds
 * @param delivered       events delivered at least once (floor: rows deleted)
 * @param duplicates      deliveries beyond the first
 * @param pendingAfter    rows still pending once the relays stopped
 * @param batches         batches claimed
 * @param keyOrder        per-key order: rows delivered after a later row of their key, -1 when not checked
 * @param runs            drains this result stands for (the median of them)
 * @param minPerSecond    the slowest of them, events/s
 * @param maxPerSecond    the fastest
 * @param failure         why the run does not verify, or {@code null}
 */
record DrainResult(String contender, int relays, int batchSize, int events, double fillSeconds,
                   double drainSeconds, double firstMillis, double eventsPerSecond, long delivered, long duplicates,
                   long pendingAfter, long batches, long keyOrder, int runs, double minPerSecond,
                   double maxPerSecond, String failure) {
    /** @return whether every event was delivered and settled (and in key order where promised) */
    boolean verified() {
        return failure == null;
    }

    /**
     * @param runs drains of one contender, at least one
     * @return the first failed one, or else the median by events/s carrying the count and the spread
     */
    static DrainResult median(List<DrainResult> runs) {
        return Repeats.median(runs, DrainResult::eventsPerSecond, DrainResult::verified, (m, n, min, max) ->
                new DrainResult(m.contender, m.relays, m.batchSize, m.events, m.fillSeconds, m.drainSeconds,
                        m.firstMillis, m.eventsPerSecond, m.delivered, m.duplicates, m.pendingAfter, m.batches, m.keyOrder, n, min, max,
                        m.failure));
    }
}
