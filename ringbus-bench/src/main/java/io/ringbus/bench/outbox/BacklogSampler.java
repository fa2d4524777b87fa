package io.ringbus.bench.outbox;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Samples a run's backlog (events committed and not yet delivered, {@link DeliveryLog#backlog()})
 * every {@value #PERIOD_MILLIS} ms on a thread of its own, from construction to {@link #close()}.
 * Reads nothing from the database, so sampling adds no load there.
 */
final class BacklogSampler implements AutoCloseable {
    /** Time between samples. */
    static final long PERIOD_MILLIS = 100;

    private final DeliveryLog log;
    private final Thread thread;
    private long[] nanos = new long[1024];
    private long[] backlog = new long[1024];
    private int samples;
    private volatile boolean closed;

    /**
     * Starts sampling.
     *
     * @param log the run's log
     */
    BacklogSampler(DeliveryLog log) {
        this.log = log;
        this.thread = Thread.ofPlatform().name("backlog-sampler").daemon(true).start(this::run);
    }

    private void run() {
        long period = TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
        for (long next = System.nanoTime(); !closed; next += period) {
            if (samples == nanos.length) {
                nanos = Arrays.copyOf(nanos, samples * 2);
                backlog = Arrays.copyOf(backlog, samples * 2);
            }
            nanos[samples] = System.nanoTime();
            backlog[samples] = log.backlog();
            samples++;
            for (long wait = next + period - System.nanoTime(); wait > 0 && !closed; wait = next + period - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    /**
     * @param fromNanos start, inclusive
     * @param toNanos   end, exclusive
     * @return the largest backlog sampled in the interval, 0 when none was sampled (after {@link #close()})
     */
    long maxBetween(long fromNanos, long toNanos) {
        long max = 0;
        for (int i = 0; i < samples; i++) {
            if (nanos[i] - fromNanos >= 0 && nanos[i] - toNanos < 0) {
                max = Math.max(max, backlog[i]);
            }
        }
        return max;
    }

    /** Stops sampling; the samples may be read afterwards. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
