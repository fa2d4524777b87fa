package io.ringbus.bench.blocking;

import io.ringbus.bench.JvmDescription;

import java.util.List;

/**
 * The blocking scenarios' results document ({@code bin/bench blocking --json},
 * {@code bench-results/blocking.json}), written by {@link BlockingReport#document()} and read by
 * the chart. Immutable.
 *
 * @param scenario always {@code blocking}
 * @param jvm      where it ran
 * @param cores    the processors the JVM could use
 * @param steady   the steady sender's setup and results (results empty when it did not run)
 * @param burst    burst results, possibly empty
 */
public record BlockingResults(String scenario, JvmDescription.Vm jvm, int cores, Steady steady, List<Burst> burst) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "blocking";

    /**
     * @param sendIntervalMs the sender's interval
     * @param blockMs        the receiver's blocking time per message
     * @param ringSize       the ring and buffer size
     * @param results        one per receiver, possibly empty
     */
    public record Steady(double sendIntervalMs, double blockMs, int ringSize, List<SteadyRow> results) {
    }

    /**
     * @param receiver           the receiver's setup
     * @param windowMs           the measured window
     * @param sent               messages sent in the window
     * @param received           messages handled in the window
     * @param sentPerMinute      {@code sent} scaled to a minute
     * @param receivedPerMinute  {@code received} scaled to a minute
     * @param scheduledPerMinute what the sender's schedule asks for, per minute
     * @param maxPublishMs       the longest publish call
     * @param senderSlowed       whether backpressure slowed the sender below its schedule
     */
    public record SteadyRow(String receiver, long windowMs, long sent, long received, double sentPerMinute,
                            double receivedPerMinute, double scheduledPerMinute, double maxPublishMs,
                            boolean senderSlowed) {
    }

    /**
     * @param handler           the handler's setup
     * @param mode              its execution mode
     * @param concurrency       how many messages it may handle at once
     * @param latencyMs         how long each handling blocks
     * @param messages          messages published at once
     * @param timeMs            time until all were handled
     * @param idealMs           messages x latency / concurrency
     * @param efficiency        ideal over measured time (1 = ideal)
     * @param messagesPerSecond messages over measured time
     */
    public record Burst(String handler, String mode, int concurrency, double latencyMs, int messages, double timeMs,
                        double idealMs, double efficiency, double messagesPerSecond) {
    }
}
