package io.ringbus.bench.outbox;

import java.util.List;

/**
 * Producers committing flat out for a fixed time: the plain-INSERT floor (no relay), or a
 * contender's producers with the contender draining; or the median of several runs.
 *
 * @param producer         who produced (and who relayed)
 * @param relays           relay instances running, 0 for the floor
 * @param threads          producer connections
 * @param seconds          the measured time (after the warm-up)
 * @param commits          commits in the measured time
 * @param commitsPerSecond commits / seconds
 * @param events           every event committed, warm-up included
 * @param backlogAtEnd     events committed and not delivered when the producers stopped, -1 for the floor
 * @param maxBacklog       the largest backlog sampled while producing, -1 for the floor
 * @param delivered        events delivered at least once, -1 for the floor
 * @param duplicates       deliveries beyond the first
 * @param keyOrder         rows delivered after a later row of their key, -1 when not checked
 * @param runs             runs this result stands for (the median of them)
 * @param minPerSecond     the slowest of them, commits/s
 * @param maxPerSecond     the fastest
 * @param failure          why the run does not verify, or {@code null}
 */
record ProducerResult(String producer, int relays, int threads, double seconds, long commits, double commitsPerSecond,
                      int events, long backlogAtEnd, long maxBacklog, long delivered, long duplicates, long keyOrder,
                      int runs, double minPerSecond, double maxPerSecond, String failure) {
    /** @return whether every event was delivered (and in key order where promised) */
    boolean verified() {
        return failure == null;
    }

    /**
     * @param runs runs of one producer, at least one
     * @return the first failed one, or else the median by commits/s carrying the count and the spread
     */
    static ProducerResult median(List<ProducerResult> runs) {
        return Repeats.median(runs, ProducerResult::commitsPerSecond, ProducerResult::verified, (m, n, min, max) ->
                new ProducerResult(m.producer, m.relays, m.threads, m.seconds, m.commits, m.commitsPerSecond, m.events,
                        m.backlogAtEnd, m.maxBacklog, m.delivered, m.duplicates, m.keyOrder, n, min, max, m.failure));
    }
}
