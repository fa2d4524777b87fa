package io.ringbus.bench.jetstream;

/**
 * The one JSON line jsbench prints for a step ({@code ringbus-bench/src/main/go/jsbench}).
 *
 * @param mode      the step
 * @param messages  operations in the measured time
 * @param total     operations the server served in the whole step, warm-up included: what its
 *                  CPU time is divided by
 * @param seconds   the measured time
 * @param perSecond messages over seconds
 * @param p50Micros median latency of a measured operation (publish and KV steps), else 0
 * @param p99Micros its 99th percentile
 * @param maxMicros the slowest
 * @param stalls    async publishes that nats.go refused as stalled (window full for 200 ms) and retried
 * @param errors    operations that failed
 * @param failure   why the step's result is wrong, or {@code null}
 */
record JsBenchResult(String mode, long messages, long total, double seconds, double perSecond, double p50Micros,
                     double p99Micros, double maxMicros, long stalls, long errors, String failure) {
}
