package io.ringbus.bench.network;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The BLOCK overload run: ringbus-server embedded with an in-process BLOCK subscriber that is
 * slower than the publishers. Passes when the child exited normally (no OutOfMemoryError) and
 * the subscriber got every message once, in order.
 *
 * @param messages            messages published in each phase
 * @param publishers          publisher connections
 * @param heap                the child's {@code -Xmx}
 * @param ringSize            the broker's ring
 * @param bufferSize          the subscriber's buffer
 * @param unloadedPublishRate msg/s while the subscriber keeps up
 * @param overloadPublishRate msg/s with the slow subscriber
 * @param consumerRate        the slow subscriber's target rate, msg/s
 * @param received            the slow subscriber's deliveries
 * @param verdict             {@code null} when exactly every message arrived once, in order
 * @param brokerDropped       messages the broker dropped (must be 0)
 * @param serverStats         the child's ringbus-server counters at the end
 * @param peakHeapBytes       sum of the heap pools' peak usage in the child
 * @param peakRssKiB          the child's peak RSS, -1 when unknown
 * @param exitCode            the child's exit code (0 = normal; 3 = OutOfMemoryError)
 */
public record BlockResult(long messages, int publishers, String heap, int ringSize, int bufferSize,
                          double unloadedPublishRate, double overloadPublishRate, double consumerRate, long received,
                          String verdict, long brokerDropped, Map<String, Long> serverStats, long peakHeapBytes,
                          long peakRssKiB, int exitCode) {
    /** Copies the stats. */
    public BlockResult {
        serverStats = Collections.unmodifiableMap(new LinkedHashMap<>(serverStats));
    }

    /** @return whether nothing was lost and the child ended normally */
    public boolean passed() {
        return verdict == null && received == messages && brokerDropped == 0 && exitCode == 0;
    }

    /** @return ringbus-server's publishPauses counter, or -1 when it was not reported */
    public long publishPauses() {
        return serverStats.getOrDefault("publishPauses", -1L);
    }
}
