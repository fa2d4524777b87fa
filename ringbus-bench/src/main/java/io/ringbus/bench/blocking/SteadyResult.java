package io.ringbus.bench.blocking;

import java.time.Duration;

/**
 * What one steady-sender run measured.
 *
 * @param setup            the receiver configuration
 * @param window           how long the sender ran
 * @param sent             messages published within the window
 * @param received         handler calls completed within the window
 * @param scheduled        messages the sender would have published had it never waited
 * @param maxPublishMillis the longest single {@code publish} call
 */
public record SteadyResult(SteadySetup setup, Duration window, long sent, long received, long scheduled,
                           double maxPublishMillis) {
    /** @return messages sent, scaled to one minute */
    public double sentPerMinute() {
        return perMinute(sent);
    }

    /** @return messages received, scaled to one minute */
    public double receivedPerMinute() {
        return perMinute(received);
    }

    /** @return messages the sender's schedule asks for, scaled to one minute */
    public double scheduledPerMinute() {
        return perMinute(scheduled);
    }

    /** @return {@code true} when backpressure held the sender below 95% of its schedule */
    public boolean senderSlowed() {
        return sent < scheduled * 0.95;
    }

    private double perMinute(long count) {
        return count * 60_000.0 / window.toMillis();
    }
}
