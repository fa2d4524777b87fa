package io.ringbus.bench.hostile;

import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A healthy client that keeps asking the server for one thing at a fixed period while an attack
 * runs, recording each answer's latency; an answer that does not come (error, closed
 * connection, {@link Wire#TIMEOUT_MILLIS}) is a failure. Runs on a platform thread of its own.
 */
abstract class Probe implements AutoCloseable {
    /** What a probe saw. */
    record Figures(String what, long answered, long failed, double p50Millis, double p99Millis,
                   double maxMillis, String firstFailure) {
    }

    private final String what;
    private final long periodNanos;
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    private final AtomicLong failed = new AtomicLong();
    private volatile String firstFailure;
    private volatile boolean running = true;
    private Thread thread;

    /**
     * @param what         what is asked, for the report
     * @param periodMillis the pause between two asks
     */
    Probe(String what, long periodMillis) {
        this.what = what;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
    }

    /** Starts asking. */
    final void start() {
        thread = Thread.ofPlatform().daemon().name("hostile-probe-" + what).start(this::loop);
    }

    /** Asks once and returns when answered. */
    abstract void ask() throws Exception;

    /** Forgets a connection that failed, so that the next ask opens a new one. */
    void reset() {
    }

    private void loop() {
        long next = System.nanoTime();
        while (running) {
            long start = System.nanoTime();
            try {
                ask();
                synchronized (latency) {
                    latency.recordValue(Math.max(1, (System.nanoTime() - start) / 1_000));
                }
            } catch (Exception e) {
                // An ask under way when the attack ended still counts: close() waits for it.
                if (firstFailure == null) {
                    firstFailure = e.toString();
                }
                failed.incrementAndGet();
                reset();
            }
            next += periodNanos;
            long pause = next - System.nanoTime();
            if (pause > 0) {
                try {
                    Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            } else {
                next = System.nanoTime();
            }
        }
    }

    /** Stops asking, waits for the ask in flight, and closes what the probe holds. */
    @Override
    public void close() {
        running = false;
        if (thread != null) {
            try {
                thread.join(Wire.TIMEOUT_MILLIS * 2L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        reset();
    }

    /** @return the figures so far */
    Figures figures() {
        synchronized (latency) {
            return new Figures(what, latency.getTotalCount(), failed.get(),
                    latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0,
                    latency.getMaxValue() / 1000.0, firstFailure);
        }
    }
}
