package io.ringbus.bench.network;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Checks one subscriber's stream of {@link SequencedPayload}s: counts deliveries and verifies
 * that each publisher's messages arrive once, in order. {@link #accept} is called by one thread
 * at a time (a jnats dispatcher, an ordered ringbus subscription, a socket reader); the counters
 * may be read from any thread.
 */
final class SequenceCheck {
    private final long[] expectedPerPublisher;
    private final long[] next;
    private final long expected;
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong misordered = new AtomicLong();
    private volatile long completedAtNanos;
    private volatile String firstProblem;

    /**
     * @param expectedPerPublisher messages each publisher sends
     */
    SequenceCheck(long[] expectedPerPublisher) {
        this.expectedPerPublisher = expectedPerPublisher.clone();
        this.next = new long[expectedPerPublisher.length];
        this.expected = Arrays.stream(expectedPerPublisher).sum();
    }

    /**
     * Records one delivery.
     *
     * @param payload the delivered payload
     * @return {@code true} when this delivery completed the expected count
     */
    boolean accept(byte[] payload) {
        int publisher = SequencedPayload.publisher(payload);
        if (publisher < 0 || publisher >= next.length) {
            problem("payload from unknown publisher " + publisher + " (" + payload.length + " bytes)");
        } else {
            long sequence = SequencedPayload.sequence(payload);
            if (sequence != next[publisher]) {
                problem("publisher " + publisher + ": expected sequence " + next[publisher] + ", got " + sequence
                        + (sequence < next[publisher] ? " (duplicate or reordered)" : " (gap: lost messages)"));
            }
            next[publisher] = sequence + 1;
        }
        long count = received.get() + 1;
        received.lazySet(count);
        if (count == expected) {
            completedAtNanos = System.nanoTime();
            return true;
        }
        if (count > expected) {
            problem("more deliveries than published: " + count + " > " + expected);
        }
        return false;
    }

    private void problem(String text) {
        misordered.incrementAndGet();
        if (firstProblem == null) {
            firstProblem = text;
        }
    }

    /** @return deliveries so far */
    long received() {
        return received.get();
    }

    /** @return deliveries this subscriber must get */
    long expected() {
        return expected;
    }

    /** @return {@link System#nanoTime()} when the last expected delivery arrived, 0 before */
    long completedAtNanos() {
        return completedAtNanos;
    }

    /**
     * @return {@code null} when exactly the expected messages arrived, once each and in order per
     *         publisher; otherwise what is wrong. Call after the stream has quiesced.
     */
    String verdict() {
        long count = received.get();
        if (count != expected) {
            return "received " + count + " of " + expected + (firstProblem == null ? "" : "; first problem: " + firstProblem);
        }
        if (misordered.get() != 0) {
            return misordered.get() + " sequence errors; first: " + firstProblem;
        }
        for (int p = 0; p < next.length; p++) {
            if (next[p] != expectedPerPublisher[p]) {
                return "publisher " + p + ": last sequence " + (next[p] - 1) + ", expected " + (expectedPerPublisher[p] - 1);
            }
        }
        return null;
    }
}
