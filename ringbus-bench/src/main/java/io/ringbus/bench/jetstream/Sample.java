package io.ringbus.bench.jetstream;

/**
 * One case measured once on one server in one round.
 *
 * @param jsCase              the case
 * @param contender           the server and its policy
 * @param round               1-based
 * @param perSecond           the measured rate, NaN when it failed
 * @param messages            operations in the measured time
 * @param total               operations the server served in the step (warm-up included)
 * @param cpuTicks            the server's user + system ticks over the step, -1 when unknown
 * @param cpuMicrosPerMessage the server's CPU time per operation of {@code total}, NaN when unknown
 * @param stalls              async publishes nats.go refused as stalled and retried
 * @param failure             why it failed, or {@code null}
 */
record Sample(JsCase jsCase, Contender contender, int round, double perSecond, long messages, long total, long cpuTicks,
              double cpuMicrosPerMessage, long stalls, String failure) {

    /**
     * @return a sample of a step that did not complete
     */
    static Sample failed(JsCase jsCase, Contender contender, int round, String failure) {
        return new Sample(jsCase, contender, round, Double.NaN, 0, 0, -1, Double.NaN, 0, failure);
    }

    /** @return whether it measured something */
    boolean ok() {
        return failure == null;
    }
}
