package io.ringbus.outbox;

/**
 * What one sink of a relay did since the relay started.
 *
 * @param name            the sink's name
 * @param maxConcurrency  its bound on deliveries in flight
 * @param inFlight        deliveries started and not yet completed
 * @param waiting         deliveries waiting for a free slot
 * @param delivered       rows delivered
 * @param retried         failed attempts that will be retried
 * @param deadLettered    rows moved to the dead letters
 * @param latencyP50Micros median append-to-ack latency, microseconds
 * @param latencyP99Micros 99th percentile append-to-ack latency, microseconds
 * @param latencyMaxMicros largest append-to-ack latency, microseconds
 */
public record SinkStats(String name, int maxConcurrency, int inFlight, int waiting, long delivered, long retried,
                        long deadLettered, long latencyP50Micros, long latencyP99Micros, long latencyMaxMicros) {
}
