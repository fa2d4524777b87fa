package io.ringbus.bench.outbox;

import java.util.List;

/**
 * Paced producers at a fixed rate with the contender running: commit-to-delivery latency over
 * the events after the warm-up, overall and per window of commit time, and the backlog.
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
 * @param backlogMax     the largest backlog sampled after the warm-up
 * @param backlogAtEnd   the backlog when the last event committed
 * @param duplicates     deliveries beyond the first
 * @param missing        events never delivered
 * @param keyOrder       rows delivered after a later row of their key
 * @param windows        the measured time in windows, in order
 * @param failure        why the run does not verify, or {@code null}
 */
record SustainedResult(String contender, int relays, double targetRate, double achievedRate, int measuredEvents,
                       long p50Micros, long p99Micros, long p999Micros, long maxMicros, long beforeCommit,
                       long backlogMax, long backlogAtEnd, long duplicates, long missing, long keyOrder,
                       List<Window> windows, String failure) {
    /** @return whether every event was delivered (and in key order where promised) */
    boolean verified() {
        return failure == null;
    }

    /**
     * One window of the measured time, by commit instant.
     *
     * @param startSeconds when it starts, seconds after the warm-up
     * @param events       events committed in it
     * @param p99Micros    their commit-to-delivery p99
     * @param maxMicros    their largest
     * @param backlogMax   the largest backlog sampled in it
     */
    record Window(double startSeconds, long events, long p99Micros, long maxMicros, long backlogMax) {
    }
}
