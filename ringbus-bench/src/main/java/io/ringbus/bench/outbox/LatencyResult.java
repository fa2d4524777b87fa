package io.ringbus.bench.outbox;

/**
 * Commit-to-delivery latency at a fixed append rate, over the events after the warm-up.
 *
 * @param contender      who relayed
 * @param relays         relay instances
 * @param targetRate     appends per second asked for
 * @param achievedRate   measured events over the time between their first and last commit
 * @param measuredEvents events in the histogram (after the warm-up)
 * @param p50Micros      median commit-to-delivery, microseconds
 * @param p99Micros      99th percentile
 * @param p999Micros     99.9th percentile
 * @param maxMicros      largest
 * @param beforeCommit   events delivered before the producer's {@code commit()} returned (counted as 0)
 * @param duplicates     deliveries beyond the first
 * @param missing        events never delivered
 * @param failure        why the run does not verify, or {@code null}
 */
record LatencyResult(String contender, int relays, double targetRate, double achievedRate, int measuredEvents,
                     long p50Micros, long p99Micros, long p999Micros, long maxMicros, long beforeCommit,
                     long duplicates, long missing, String failure) {
    /** @return whether every event was delivered */
    boolean verified() {
        return failure == null;
    }
}
