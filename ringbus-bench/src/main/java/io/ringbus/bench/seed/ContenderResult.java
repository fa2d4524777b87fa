package io.ringbus.bench.seed;

import io.ringbus.bench.Median;

import java.util.Arrays;

/**
 * The measured rounds of one contender.
 *
 * @param kind               the contender
 * @param keepsProducerOrder whether it promises per-producer order
 * @param roundNanos         each measured round's time, in run order
 * @param outOfOrder         reordered deliveries over all measured rounds
 * @param dispatches         handler calls per round
 */
public record ContenderResult(ContenderKind kind, boolean keepsProducerOrder, long[] roundNanos, long outOfOrder,
                              long dispatches) {
    /**
     * @throws IllegalArgumentException when there is no round
     */
    public ContenderResult {
        if (roundNanos.length == 0) {
            throw new IllegalArgumentException("at least one measured round is needed: rounds=0");
        }
        roundNanos = roundNanos.clone();
    }

    /** @return the median round in milliseconds (the mean of the middle two for an even count) */
    public double medianMillis() {
        return Median.of(Arrays.stream(roundNanos).asDoubleStream().toArray()) / 1e6;
    }

    /** @return the fastest round in milliseconds */
    public double minMillis() {
        return Arrays.stream(roundNanos).min().orElseThrow() / 1e6;
    }

    /** @return the slowest round in milliseconds */
    public double maxMillis() {
        return Arrays.stream(roundNanos).max().orElseThrow() / 1e6;
    }

    /** @return millions of dispatches per second, from the median round */
    public double millionDispatchesPerSecond() {
        return dispatches / (medianMillis() * 1_000.0);
    }
}
