package io.ringbus.server.internal;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wire path from a publisher's socket to its subscribers' sockets (parse, route, encode)
 * allocates nothing per message: a PUB is lent to the broker as a view of the input and copied
 * once into each subscriber's output. Measured by the JVM's count of the bytes this thread
 * allocated, after a warm-up (the JIT's escape analysis and the buffer pools' caches settle).
 */
class WirePathAllocationTest {
    private static final int WARM_UP_READS = 5_000;
    private static final int MEASURED_READS = 5_000;
    /**
     * Per message: half the smallest object (16 B), so one object per message fails, while the
     * rare buffer a pool or an output chain adds as it grows does not (measured: 0.4 B with one
     * subscriber, 1.7 B with four; the path before it was ~110 B: a message object, a payload
     * copy and a slice).
     */
    private static final double MOST_BYTES_PER_MESSAGE = 8.0;

    @Test
    void publishToNetworkSubscribersAllocatesNothingPerMessage() {
        assertBytesPerMessage(1, 16);
        assertBytesPerMessage(4, 16);
        assertBytesPerMessage(1, 1024);
        assertBytesPerMessage(4, 1024);
    }

    private static void assertBytesPerMessage(int subscribers, int payloadBytes) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (LoopbackPipeline pipeline = new LoopbackPipeline(subscribers, payloadBytes, 32)) {
            for (int i = 0; i < WARM_UP_READS; i++) {
                pipeline.publish();
            }
            long outBefore = pipeline.bytesOut();
            long before = threads.getCurrentThreadAllocatedBytes();
            long messages = 0;
            for (int i = 0; i < MEASURED_READS; i++) {
                messages += pipeline.publish();
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            long delivered = pipeline.bytesOut() - outBefore;
            // The path really ran: every message reached every subscriber.
            assertThat(delivered).isGreaterThanOrEqualTo(messages * subscribers * (payloadBytes + 2));
            assertThat((double) allocated / messages)
                    .as("bytes allocated per message, %d subscribers, %d B payload", subscribers, payloadBytes)
                    .isLessThanOrEqualTo(MOST_BYTES_PER_MESSAGE);
        }
    }
}
