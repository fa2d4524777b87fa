package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.ringbus.core.internal.log.LogFixtures.appendRecords;
import static io.ringbus.core.internal.log.LogFixtures.readAll;
import static io.ringbus.core.internal.log.LogFixtures.segmentFiles;
import static io.ringbus.core.internal.log.LogFixtures.sequences;
import static io.ringbus.core.internal.log.SegmentLogTest.range;
import static org.assertj.core.api.Assertions.assertThat;

/** Retention deletes whole segments, oldest first, never the active one. */
class SegmentLogRetentionTest {
    private static final long SEGMENT = 4096;

    @TempDir
    Path dir;

    @Test
    void retentionByBytesKeepsTheNewestSegmentsWithinTheLimit() throws IOException {
        LogConfig config = config().maxBytes(3 * SEGMENT).build();
        try (SegmentLog log = SegmentLog.open(dir, config)) {
            appendRecords(log, 1, 1_000);
            LogStats stats = log.stats();
            assertThat(stats.bytes()).isLessThanOrEqualTo(3 * SEGMENT + SEGMENT);
            assertRetainedAreContiguousToTheEnd(log, 1_000);
        }
    }

    @Test
    void retentionByBytesNeverHoldsMoreThanTheLimit() throws IOException {
        try (SegmentLog log = SegmentLog.open(dir, config().maxBytes(3 * SEGMENT).build())) {
            for (int i = 1; i <= 1_000; i++) {
                appendRecords(log, i, i);
                assertThat(log.stats().bytes()).as("after record %d", i).isLessThanOrEqualTo(3 * SEGMENT);
            }
            assertRetainedAreContiguousToTheEnd(log, 1_000);
        }
    }

    @Test
    void retentionByRecordsNeverHoldsMoreThanTheLimitWithSegmentsRolledByCount() throws IOException {
        try (SegmentLog log = SegmentLog.open(dir, config().maxRecords(100).segmentRecords(10).build())) {
            for (int i = 1; i <= 1_000; i++) {
                appendRecords(log, i, i);
                assertThat(log.stats().records()).as("after record %d", i).isLessThanOrEqualTo(100);
            }
            assertThat(log.stats().records()).isGreaterThanOrEqualTo(80);
            assertRetainedAreContiguousToTheEnd(log, 1_000);
        }
    }

    @Test
    void retentionByRecordsKeepsTheNewestRecords() throws IOException {
        try (SegmentLog log = SegmentLog.open(dir, config().maxRecords(100).build())) {
            appendRecords(log, 1, 1_000);
            Segment[] segments = log.segments();
            long inactive = log.stats().records() - segments[segments.length - 1].records();
            assertThat(inactive).isLessThanOrEqualTo(100);
            assertRetainedAreContiguousToTheEnd(log, 1_000);
        }
    }

    @Test
    void retentionByAgeDeletesEverySegmentButTheActiveOne() throws IOException {
        try (SegmentLog log = SegmentLog.open(dir, config().maxAge(Duration.ofMillis(50)).build())) {
            appendRecords(log, 1, 1_000);
            Await.until("every old segment deleted by age", () -> {
                log.applyRetention();
                return log.stats().segments() == 1;
            });
            Segment active = log.segments()[0];
            assertThat(active.records()).isPositive();
            assertThat(log.firstSequence()).isEqualTo(active.baseSequence);
            assertRetainedAreContiguousToTheEnd(log, 1_000);
        }
    }

    @Test
    void retentionAppliesOnOpen() throws IOException {
        try (SegmentLog log = SegmentLog.open(dir, config().build())) {
            appendRecords(log, 1, 1_000);
            assertThat(log.firstSequence()).isEqualTo(1);
        }
        try (SegmentLog log = SegmentLog.open(dir, config().maxBytes(2 * SEGMENT).build())) {
            assertThat(log.stats().bytes()).isLessThanOrEqualTo(3 * SEGMENT);
            assertRetainedAreContiguousToTheEnd(log, 1_000);
        }
    }

    @Test
    void aReaderOnADeletedSegmentGoesOnAtTheFirstRetainedRecord() {
        try (SegmentLog log = SegmentLog.open(dir, config().maxBytes(3 * SEGMENT).build())) {
            appendRecords(log, 1, 10);
            LogReader reader = log.reader(1);
            assertThat(reader.next().sequence()).isEqualTo(1);
            appendRecords(log, 11, 1_000); // deletes the segment the reader is in
            assertThat(log.firstSequence()).isGreaterThan(11);
            List<Long> rest = sequences(readAll(reader));
            // What the reader had read ahead before the deletion (at most 2..10) may still come; then
            // it goes on at the first retained record, with no error and nothing out of order.
            long first = log.firstSequence();
            List<Long> readAhead = rest.stream().filter(s -> s < first).toList();
            assertThat(readAhead).isSubsetOf(range(2, 10)).isSorted();
            assertThat(rest.subList(readAhead.size(), rest.size())).containsExactlyElementsOf(range(first, 1_000));
        }
    }

    private void assertRetainedAreContiguousToTheEnd(SegmentLog log, long last) throws IOException {
        long first = log.firstSequence();
        assertThat(first).as("something was deleted").isGreaterThan(1);
        assertThat(log.lastSequence()).isEqualTo(last);
        assertThat(sequences(readAll(log.reader(1)))).containsExactlyElementsOf(range(first, last));
        List<Path> files = segmentFiles(dir);
        assertThat(files).hasSize(log.stats().segments());
        assertThat(files.get(0).getFileName().toString()).isEqualTo(Segment.name(first, ".log"));
        try (var all = Files.list(dir)) {
            assertThat(all.count()).as("a .log and an .idx per segment").isEqualTo(2L * files.size());
        }
    }

    private static LogConfig.Builder config() {
        return LogConfig.builder().segmentBytes(SEGMENT).policy(FsyncPolicy.OS);
    }
}
