package io.ringbus.core;

/**
 * A doubling back-off: the wait before a retry starts at {@code initial} and doubles after each
 * failed try, up to {@code max}. The one back-off of ringbus: the broker's waits for ring space,
 * a BLOCK buffer and the drain on close, the server's read pauses, the outbox relays' reconnects.
 *
 * <p>An immutable value, free of any unit: a loop keeps the current wait in a local
 * {@code long} in the unit it waits in (nanoseconds for {@code LockSupport.parkNanos},
 * milliseconds for {@code Thread.sleep}), starts it at {@link #initial()}, replaces it with
 * {@link #next(long)} after each failed try, and sets it back to {@link #initial()} where the
 * loop's work succeeded again. Nothing allocates, so it may sit on a publisher's slow path.
 *
 * <pre>{@code
 * private static final Backoff PARK_NANOS = new Backoff(1_000, 50_000);
 * long park = PARK_NANOS.initial();
 * while (!tryClaim()) {
 *     LockSupport.parkNanos(park);
 *     park = PARK_NANOS.next(park);
 * }
 * }</pre>
 *
 * <p>Thread-safe, being immutable; the {@code long} a loop keeps is its own (one per loop).
 *
 * @param initial the first wait, &gt; 0
 * @param max     the longest wait, &gt;= {@code initial}
 */
public record Backoff(long initial, long max) {
    /**
     * Checks the bounds.
     *
     * @throws IllegalArgumentException naming the values when {@code initial <= 0} or {@code max < initial}
     */
    public Backoff {
        if (initial <= 0) {
            throw new IllegalArgumentException("initial must be > 0: initial=" + initial);
        }
        if (max < initial) {
            throw new IllegalArgumentException("max must be >= initial: max=" + max + ", initial=" + initial);
        }
    }

    /**
     * The wait after one more failed try.
     *
     * @param current the wait just used
     * @return twice {@code current}, but at most {@link #max()} (never overflows)
     */
    public long next(long current) {
        return current > max / 2 ? max : current * 2;
    }
}
