package io.ringbus.bench.outbox;

/**
 * One HTTP experiment run: a backlog relayed to a slow local endpoint.
 *
 * @param maxConcurrency  the sink's bound on requests in flight
 * @param batchSize       rows per claim
 * @param parallelBatches batches the relay had in flight at once
 * @param events          rows in the backlog
 * @param latencyMillis   the endpoint's answer delay
 * @param elapsedSeconds  relay start to the last answer
 * @param idealSeconds    events x latency / maxConcurrency
 * @param waveSeconds     the floor the relay's batch boundary sets: batches x ceil(batch / concurrency) x latency
 *                        / parallel batches (never below the ideal)
 * @param peakInFlight    most requests the endpoint had at once
 * @param duplicates      events answered more than once
 * @param failure         why the run does not verify, or {@code null}
 */
record HttpResult(int maxConcurrency, int batchSize, int parallelBatches, int events, long latencyMillis, double elapsedSeconds,
                  double idealSeconds, double waveSeconds, int peakInFlight, long duplicates, String failure) {
    /** @return elapsed over ideal (1.0 = the concurrency is used all the time) */
    double ratioToIdeal() {
        return elapsedSeconds / idealSeconds;
    }

    /** @return events per second */
    double eventsPerSecond() {
        return events / elapsedSeconds;
    }

    /** @return whether every event was answered and settled */
    boolean verified() {
        return failure == null;
    }
}
