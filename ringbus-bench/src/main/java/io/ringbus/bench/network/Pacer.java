package io.ringbus.bench.network;

import java.util.concurrent.locks.LockSupport;

/**
 * Holds a consumer to a fixed rate without burning a core: message {@code n} is not finished
 * before {@code start + n x interval}. {@code parkNanos} oversleeps by tens of microseconds, so
 * the consumer then handles a few messages in a row: the average rate is exact, the spacing is
 * not. Used by one thread at a time.
 */
final class Pacer {
    private final long intervalNanos;
    private long start;
    private long count;

    /**
     * @param intervalNanos time per message, &gt;= 0; 0 does not wait
     */
    Pacer(long intervalNanos) {
        if (intervalNanos < 0) {
            throw new IllegalArgumentException("interval must be >= 0: intervalNanos=" + intervalNanos);
        }
        this.intervalNanos = intervalNanos;
    }

    /**
     * @param messagesPerSecond the target rate, &gt; 0
     * @return a pacer for that rate
     */
    static Pacer perSecond(double messagesPerSecond) {
        return new Pacer(Math.max(1, Math.round(1e9 / messagesPerSecond)));
    }

    /** @return time per message in nanoseconds */
    long intervalNanos() {
        return intervalNanos;
    }

    /** Waits until the current message's slot has passed; call once per message. */
    void pace() {
        if (intervalNanos == 0) {
            return;
        }
        long now = System.nanoTime();
        if (count == 0) {
            start = now;
        }
        long due = start + ++count * intervalNanos;
        while (due - now > 0) {
            LockSupport.parkNanos(due - now);
            now = System.nanoTime();
        }
    }
}
