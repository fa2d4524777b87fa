package io.ringbus.bench.storage;

/**
 * The JSON object jsload prints: every mode's figures, a mode filling those it measures.
 *
 * @param mode      publish, fill, replay, ack or first
 * @param messages  messages published, read or acknowledged
 * @param seconds   the time they took
 * @param perSecond messages over seconds
 * @param p50Micros publish: publish call to PubAck, median
 * @param p99Micros publish: its 99th percentile
 * @param maxMicros publish: its largest
 * @param errors    publishes that failed
 * @param failure   what failed (loss, order, errors), or {@code null}
 */
record JsLoadResult(String mode, long messages, double seconds, double perSecond, double p50Micros, double p99Micros,
                    double maxMicros, long errors, String failure) {
}
