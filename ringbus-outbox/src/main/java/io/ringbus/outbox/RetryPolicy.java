package io.ringbus.outbox;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When a failed row is tried again: exponential backoff with jitter, and after
 * {@code maxAttempts} failed attempts the row becomes a dead letter.
 *
 * <p>The delay before attempt {@code n + 1} (after {@code n} failures) is
 * {@code min(maxBackoff, initialBackoff x 2^(n-1))}, multiplied by a random factor in
 * {@code [1 - jitter, 1]} so that rows failing together do not retry together.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param maxAttempts    attempts before dead-lettering, at least 1
 * @param initialBackoff delay after the first failure, positive
 * @param maxBackoff     cap of the delay, at least {@code initialBackoff}
 * @param jitter         fraction of the delay that is random, in [0, 1]
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, double jitter) {
    /** 10 attempts, 1 s doubling to 5 min, 50 % jitter. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(10, Duration.ofSeconds(1), Duration.ofMinutes(5), 0.5);

    /** Checks the components, naming a bad one. */
    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: maxAttempts=" + maxAttempts);
        }
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException("initialBackoff must be positive: initialBackoff=" + initialBackoff);
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff must be at least initialBackoff: maxBackoff=" + maxBackoff
                    + ", initialBackoff=" + initialBackoff);
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1]: jitter=" + jitter);
        }
    }

    /**
     * @param failures failed attempts so far, at least 1
     * @return the delay before the next attempt, in milliseconds
     */
    public long backoffMillis(int failures) {
        long initial = initialBackoff.toMillis();
        long cap = maxBackoff.toMillis();
        int shift = Math.min(Math.max(failures - 1, 0), 40);
        long delay = initial > (cap >> shift) ? cap : Math.min(cap, initial << shift);
        double factor = 1 - jitter * ThreadLocalRandom.current().nextDouble();
        return Math.max(1, Math.round(delay * factor));
    }
}
