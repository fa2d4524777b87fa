package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.ringbus.core.internal.log.LogFixtures.appendRecords;
import static io.ringbus.core.internal.log.LogFixtures.segmentFiles;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log's names are durable: a segment's directory is forced after it is created and before any
 * record in it is acknowledged, once per segment (not per append); retention's unlinks are followed
 * by a directory {@code fsync}; a torn tail is counted as a repair. Proved on the sequence of
 * operations {@link DurableFiles} reports, with the acknowledgements interleaved.
 */
class SegmentLogDurableNamesTest {
    @TempDir
    Path dir;

    /** Operations and acknowledgements, in the order they happened. */
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    private DurableFiles files(boolean sync) {
        return new DurableFiles(sync, (operation, path) -> events.add(operation + " " + path.getFileName()));
    }

    @Test
    void aRolledSegmentsNameIsDurableBeforeItsFirstRecordIsAcknowledged() throws IOException {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        LogConfig config = LogConfig.builder().policy(FsyncPolicy.ALWAYS).segmentRecords(10).build();
        DurableFiles files = files(true);
        try (SegmentLog log = SegmentLog.open(dir, config, files)) {
            for (long sequence = 1; sequence <= 35; sequence++) {
                appendRecords(log, sequence, sequence);
                log.awaitDurable(sequence);
                events.add("ACK " + sequence);
            }
        }
        List<String> seen = List.copyOf(events);
        for (long base : new long[] {1, 11, 21, 31}) {
            String created = "CREATE " + Segment.name(base, ".log");
            int create = seen.indexOf(created);
            int ack = seen.indexOf("ACK " + base);
            assertThat(create).as("%s in %s", created, seen).isNotNegative();
            assertThat(seen.subList(create, ack)).as("between %s and the ack of its first record", created)
                    .contains("SYNC_DIRECTORY " + dir.getFileName());
        }
        // Once per created segment, never per append: 4 segments, 4 directory fsyncs, 35 appends.
        assertThat(segmentFiles(dir)).hasSize(4);
        assertThat(files.stats().directorySyncs()).isEqualTo(4);
        assertThat(files.stats().creates()).isEqualTo(8); // a .log and an .idx each
    }

    /**
     * Under INTERVAL the appending thread (a server's event loop) never waits for the disk at a roll:
     * the flusher forces the new name before the periodic force reports its first record durable.
     */
    @Test
    void aRollUnderIntervalIsForcedByTheFlusherBeforeItsRecordsAreDurable() throws IOException {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        LogConfig config = LogConfig.builder().policy(FsyncPolicy.INTERVAL).intervalMillis(20)
                .segmentRecords(5).build();
        DurableFiles files = files(true);
        try (SegmentLog log = SegmentLog.open(dir, config, files)) {
            for (long sequence = 1; sequence <= 6; sequence++) {
                appendRecords(log, sequence, sequence);
                events.add("APPENDED " + sequence);
            }
            log.awaitDurable(6);
            events.add("DURABLE 6");
        }
        List<String> seen = List.copyOf(events);
        int create = seen.indexOf("CREATE " + Segment.name(6, ".log"));
        int durable = seen.indexOf("DURABLE 6");
        assertThat(seen.subList(create, durable)).contains("SYNC_DIRECTORY " + dir.getFileName());
    }

    @Test
    void retentionForcesTheDirectoryAfterItDeletesSoDeletedRecordsStayDeleted() throws IOException {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        LogConfig config = LogConfig.builder().policy(FsyncPolicy.ALWAYS).segmentRecords(10).maxRecords(20).build();
        DurableFiles files = files(true);
        try (SegmentLog log = SegmentLog.open(dir, config, files)) {
            appendRecords(log, 1, 60);
            log.awaitDurable(60);
        }
        assertThat(files.stats().deletes()).as("segments deleted by retention, .log and .idx").isPositive();
        List<String> seen = List.copyOf(events);
        int lastDelete = seen.lastIndexOf("DELETE " + Segment.name(1, ".log"));
        assertThat(lastDelete).isNotNegative();
        assertThat(seen.subList(lastDelete, seen.size())).contains("SYNC_DIRECTORY " + dir.getFileName());
    }

    @Test
    void theOsPolicyCountsCreationsButForcesNothing() throws IOException {
        LogConfig config = LogConfig.builder().policy(FsyncPolicy.OS).segmentRecords(10).build();
        DurableFiles files = files(false);
        try (SegmentLog log = SegmentLog.open(dir, config, files)) {
            appendRecords(log, 1, 25);
        }
        assertThat(files.stats().creates()).isEqualTo(6);
        assertThat(files.stats().directorySyncs()).isZero();
        assertThat(events).noneMatch(e -> e.startsWith("SYNC_"));
    }

    @Test
    void aNewLogDirectoryIsMadeDurableInItsParent() throws IOException {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        Path logDir = dir.resolve("stream").resolve("log");
        DurableFiles files = files(true);
        try (SegmentLog log = SegmentLog.open(logDir, LogConfig.builder().build(), files)) {
            appendRecords(log, 1, 1);
        }
        assertThat(events).containsSubsequence("CREATE stream", "SYNC_DIRECTORY " + dir.getFileName(),
                "CREATE log", "SYNC_DIRECTORY stream", "CREATE " + Segment.name(1, ".log"), "SYNC_DIRECTORY log");
    }

    @Test
    void aTornTailIsTruncatedAtTheLastValidRecordAndCountedAsARepair() throws IOException {
        LogConfig config = LogConfig.builder().policy(FsyncPolicy.OS).build();
        try (SegmentLog log = SegmentLog.open(dir, config)) {
            appendRecords(log, 1, 20);
        }
        Path segment = segmentFiles(dir).get(0);
        long whole = Files.size(segment);
        Files.write(segment, "half a rec".getBytes(StandardCharsets.US_ASCII), StandardOpenOption.APPEND);
        DurableFiles files = files(false);
        try (SegmentLog log = SegmentLog.open(dir, config, files)) {
            assertThat(log.lastSequence()).isEqualTo(20);
            assertThat(log.stats().truncatedTailBytes()).isEqualTo(10);
        }
        assertThat(Files.size(segment)).isEqualTo(whole);
        assertThat(files.stats().repairs()).isEqualTo(1);
        assertThat(events).contains("REPAIR " + segment.getFileName());
    }

    @Test
    void replaceWritesATemporaryFileForcesItRenamesItAndForcesTheDirectory() throws IOException {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        Path file = dir.resolve("meta");
        Files.writeString(file, "old\n");
        DurableFiles files = files(true);
        files.replace(file, ByteBuffer.wrap("new\n".getBytes(StandardCharsets.UTF_8)));
        assertThat(events).containsExactly("SYNC_FILE meta.tmp", "RENAME meta", "SYNC_DIRECTORY " + dir.getFileName());
        assertThat(Files.readString(file)).isEqualTo("new\n");
        assertThat(DurableFiles.temporary(file)).doesNotExist();
        assertThat(files.stats()).isEqualTo(new DurableFiles.Stats(0, 1, 0, 1, 0));
    }

    @Test
    void deletingFilesForcesTheirDirectoryOnceAfterTheUnlinks() throws IOException {
        Assumptions.assumeTrue(DurableFiles.directorySyncSupported());
        Path a = Files.writeString(dir.resolve("a"), "a");
        Path b = Files.writeString(dir.resolve("b"), "b");
        DurableFiles files = files(true);
        files.delete(a, b, dir.resolve("never-existed"));
        assertThat(events).containsExactly("DELETE a", "DELETE b", "SYNC_DIRECTORY " + dir.getFileName());
        assertThat(a).doesNotExist();
        assertThat(files.stats().deletes()).isEqualTo(2);
    }
}
