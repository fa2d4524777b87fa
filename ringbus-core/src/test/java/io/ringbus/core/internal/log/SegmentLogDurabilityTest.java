package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** awaitDurable under each policy, and group commit under ALWAYS; counters, not timings. */
class SegmentLogDurabilityTest {
    @TempDir
    Path dir;

    @Test
    void oneFsyncMakesEveryRecordAppendedBeforeItDurable() {
        try (SegmentLog log = SegmentLog.open(dir, LogConfig.builder().policy(FsyncPolicy.ALWAYS).build())) {
            LogFixtures.appendRecords(log, 1, 1_000);
            assertThat(log.stats().fsyncs()).as("nothing forced until asked").isZero();
            log.awaitDurable(1_000);
            assertThat(log.stats().durableSequence()).isEqualTo(1_000);
            assertThat(log.stats().fsyncs()).isEqualTo(1);
            log.awaitDurable(1);
            assertThat(log.stats().fsyncs()).as("already durable: no new fsync").isEqualTo(1);
        }
    }

    @Test
    void concurrentPublishersShareFsyncsThroughGroupCommit() throws Exception {
        int threads = 8;
        int perThread = 200;
        try (SegmentLog log = SegmentLog.open(dir, LogConfig.builder().policy(FsyncPolicy.ALWAYS).build());
             ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        long sequence = log.append("durable", null, new byte[64]);
                        log.awaitDurable(sequence);
                        assertThat(log.stats().durableSequence()).isGreaterThanOrEqualTo(sequence);
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
            LogStats stats = log.stats();
            assertThat(stats.lastSequence()).isEqualTo((long) threads * perThread);
            assertThat(stats.durableSequence()).isEqualTo(stats.lastSequence());
            assertThat(stats.fsyncs()).as("fsyncs for %d acknowledged appends", stats.lastSequence())
                    .isPositive().isLessThan(stats.lastSequence());
        }
    }

    @Test
    void intervalPolicyAcknowledgesAtTheFlushersNextFsync() {
        try (SegmentLog log = SegmentLog.open(dir, LogConfig.builder().policy(FsyncPolicy.INTERVAL)
                .intervalMillis(20).build())) {
            long sequence = log.append("s", null, new byte[] {1});
            log.awaitDurable(sequence);
            LogStats stats = log.stats();
            assertThat(stats.fsyncs()).isPositive();
            assertThat(stats.durableSequence()).isGreaterThanOrEqualTo(sequence);
        }
    }

    @Test
    void osPolicyReturnsAtOnceAndForcesOnlyAtClose() {
        SegmentLog log = SegmentLog.open(dir, LogConfig.builder().policy(FsyncPolicy.OS).segmentBytes(4096).build());
        LogFixtures.appendRecords(log, 1, 500);
        log.awaitDurable(500);
        assertThat(log.stats().segments()).isGreaterThan(1);
        assertThat(log.stats().fsyncs()).isZero();
        assertThat(log.stats().durableSequence()).isEqualTo(500);
        log.close();
        assertThat(log.stats().fsyncs()).as("close forces every segment, rolled ones too")
                .isEqualTo(log.stats().segments());
    }

    @Test
    void closeForcesAndReleasesWaiters() {
        SegmentLog log = SegmentLog.open(dir, LogConfig.builder().policy(FsyncPolicy.INTERVAL)
                .intervalMillis(60_000).build());
        long sequence = log.append("s", null, new byte[] {1});
        log.close();
        assertThat(log.stats().fsyncs()).isEqualTo(1);
        assertThat(log.stats().durableSequence()).isEqualTo(sequence);
        log.awaitDurable(sequence);
    }
}
