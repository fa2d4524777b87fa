package io.ringbus.bench.blocking;

import java.time.Duration;

/**
 * What one burst run measured.
 *
 * @param setup    the handler configuration
 * @param latency  how long each handler call blocked
 * @param messages messages published at once
 * @param nanos    time from the first publish to the last handler's return
 */
public record BurstResult(BurstSetup setup, Duration latency, int messages, long nanos) {
    /** @return the run's time in milliseconds */
    public double millis() {
        return nanos / 1e6;
    }

    /** @return {@code messages x latency / concurrency} in milliseconds: perfect overlap */
    public double idealMillis() {
        return messages * (latency.toNanos() / 1e6) / Math.min(setup.concurrency(), messages);
    }

    /** @return ideal over measured time: 1.0 is perfect overlap */
    public double efficiency() {
        return idealMillis() / millis();
    }

    /** @return messages handled per second */
    public double messagesPerSecond() {
        return messages / (nanos / 1e9);
    }
}
