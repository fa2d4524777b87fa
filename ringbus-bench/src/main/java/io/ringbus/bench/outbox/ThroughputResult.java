package io.ringbus.bench.outbox;

/**
 * One drain of a pre-filled backlog.
 *
 * @param contender       who relayed
 * @param relays          relay instances
 * @param batchSize       rows per claim
 * @param events          rows in the backlog
 * @param fillSeconds     time to append the backlog (not part of the drain)
 * @param drainSeconds    relay start to the last first delivery
 * @param eventsPerSecond events / drainSeconds
 * @param delivered       events delivered at least once
 * @param duplicates      deliveries beyond the first
 * @param pendingAfter    rows still pending once the relays stopped
 * @param batches         batches claimed (ringbus) or ticks (naive)
 * @param failure         why the run does not verify, or {@code null}
 */
record ThroughputResult(String contender, int relays, int batchSize, int events, double fillSeconds,
                        double drainSeconds, double eventsPerSecond, long delivered, long duplicates,
                        long pendingAfter, long batches, String failure) {
    /** @return whether every event was delivered and settled */
    boolean verified() {
        return failure == null;
    }
}
