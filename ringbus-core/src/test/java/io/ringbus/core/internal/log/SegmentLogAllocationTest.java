package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.testkit.AllocatedBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An append allocates nothing: the heap bytes the appending thread allocates over many appends,
 * measured by HotSpot's per-thread counter, stay below one byte per append (a single object per
 * append would be at least 16). Rolls and the index's growth are amortized outside the window:
 * the segment is large and warmed up first (200,000 appends stay below 8,192 index entries).
 */
class SegmentLogAllocationTest {
    private static final int WARM_UP = 150_000; // 124-byte frames: the index grows to 8,192 entries near 135,000 appends
    private static final int MEASURED = 50_000;

    @TempDir
    Path dir;

    @Test
    void anAppendAllocatesNothing() throws Exception {
        assumeTrue(AllocatedBytes.supported(), "needs com.sun.management.ThreadMXBean");
        byte[] payload = new byte[64];
        byte[] headers = new byte[8];
        try (SegmentLog log = SegmentLog.open(dir, LogConfig.builder().policy(FsyncPolicy.OS).build())) {
            for (int i = 0; i < WARM_UP; i++) {
                log.append("orders.created", headers, payload);
            }
            long before = AllocatedBytes.currentThread();
            for (int i = 0; i < MEASURED; i++) {
                log.append("orders.created", headers, payload);
            }
            long allocated = AllocatedBytes.currentThread() - before;
            assertThat(log.stats().segments()).as("no roll in the window").isEqualTo(1);
            assertThat(allocated).as("bytes allocated by %d appends", MEASURED).isLessThan(MEASURED);
        }
    }
}
