package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.testkit.PowerLossFileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;

import static io.ringbus.core.internal.log.LogFixtures.appendRecords;
import static io.ringbus.core.internal.log.LogFixtures.readAll;
import static io.ringbus.core.internal.log.LogFixtures.sequences;
import static io.ringbus.core.internal.log.SegmentLogTest.range;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Recovery in O(tail) after a power cut (issue 30): a log ({@code ALWAYS}, 256 KiB segments, the
 * active index forced every 16 KiB) on a {@link PowerLossFileSystem} (POSIX names) is appended to,
 * each batch acknowledged after {@code awaitDurable}, until the power is cut (torn or not). The
 * reopened log must hold every acknowledged record, intact, and must have scanned at most the active
 * segment and the one rolled last (if its seal was not durable yet), each from its last forced index
 * entry: what open read is bounded by the checkpoint interval, not by the log's size.
 */
@Timeout(300)
class SegmentLogPowerCutTest {
    private static final int SEGMENT_BYTES = 256 << 10;
    private static final int CHECKPOINT_BYTES = 16 << 10;
    private static final LogConfig CONFIG = LogConfig.builder().policy(FsyncPolicy.ALWAYS).segmentBytes(SEGMENT_BYTES)
            .indexCheckpointBytes(CHECKPOINT_BYTES).build();
    private static final int BATCH = 50;
    /** More than the largest frame {@link LogFixtures} appends (about 120 bytes). */
    private static final int MAX_FRAME = 256;

    @TempDir
    Path work;

    @ParameterizedTest
    @ValueSource(longs = {0, 3_001, 3_002})
    void afterACutOpenScansOnlyWhatFollowsTheLastCheckpoint(long tornSeed) throws Exception {
        Assumptions.assumeTrue(PowerLossFileSystem.available(), PowerLossFileSystem::unavailableReason);
        // About 2 MB: the cut comes 120-200 KB into the active segment, far more than a checkpoint.
        int records = 24_000 - 500 * (int) (tornSeed % 3);
        try (PowerLossFileSystem fs = PowerLossFileSystem.mount(work.resolve("mnt"), work.resolve("disk"),
                PowerLossFileSystem.Mode.POSIX)) {
            Path dir = fs.mountPoint().resolve("log");
            SegmentLog log = SegmentLog.open(dir, CONFIG);
            for (long from = 1; from <= records; from += BATCH) {
                appendRecords(log, from, from + BATCH - 1);
                log.awaitDurable(from + BATCH - 1);
            }
            long acknowledged = log.lastSequence();
            appendRecords(log, acknowledged + 1, acknowledged + 7); // not acknowledged: may be lost
            if (tornSeed == 0) {
                fs.cut();
            } else {
                fs.cut(tornSeed);
            }
            log.close(); // its files are gone with the power: every force fails, logged

            try (SegmentLog reopened = SegmentLog.open(dir, CONFIG)) {
                LogStats stats = reopened.stats();
                assertThat(reopened.lastSequence()).isBetween(acknowledged, acknowledged + 7);
                List<StoredRecord> all = readAll(reopened.reader(1));
                assertThat(sequences(all)).containsExactlyElementsOf(range(1, reopened.lastSequence()));
                all.forEach(LogFixtures::assertContents);
                assertThat(stats.corruptRecordsSkipped()).isZero();
                assertThat(stats.openScannedSegments()).as("the active segment, and the last rolled one at most")
                        .isBetween(1, 2);
                // Per scanned segment: its index, and from its last forced entry to its end, read twice
                // (the entry's check, then the scan); per sealed one: its seal and last record.
                long scan = 2L * (CHECKPOINT_BYTES + SegmentIndex.INTERVAL_BYTES + BATCH * MAX_FRAME);
                long index = (long) SEGMENT_BYTES / SegmentIndex.INTERVAL_BYTES * SegmentIndex.ENTRY_BYTES;
                long seals = stats.segments() * (SegmentSeal.BYTES + MAX_FRAME);
                assertThat(stats.openReadBytes()).as("read at open of a %d-byte log in %d segments", stats.bytes(),
                        stats.segments()).isLessThanOrEqualTo(stats.openScannedSegments() * (scan + index) + seals);
                for (long from = 1; from <= acknowledged; from += 501) {
                    assertThat(reopened.reader(from).next().sequence()).isEqualTo(from);
                }
                System.out.printf("SegmentLogPowerCutTest (torn seed %d): %d acknowledged, %d B in %d segments,"
                                + " open scanned %d segment(s) and read %d B%n", tornSeed, acknowledged, stats.bytes(),
                        stats.segments(), stats.openScannedSegments(), stats.openReadBytes());
            }
        }
    }
}
