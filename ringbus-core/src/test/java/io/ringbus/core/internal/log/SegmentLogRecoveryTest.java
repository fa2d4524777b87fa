package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;

import static io.ringbus.core.internal.log.LogFixtures.appendRecords;
import static io.ringbus.core.internal.log.LogFixtures.frameBytes;
import static io.ringbus.core.internal.log.LogFixtures.readAll;
import static io.ringbus.core.internal.log.LogFixtures.segmentFiles;
import static io.ringbus.core.internal.log.LogFixtures.sequences;
import static io.ringbus.core.internal.log.SegmentLogTest.range;
import static org.assertj.core.api.Assertions.assertThat;

/** Torn tails and corrupt records, made on real files between a close and a reopen. */
class SegmentLogRecoveryTest {
    private static final LogConfig CONFIG = LogConfig.builder().segmentBytes(1 << 20).policy(FsyncPolicy.OS).build();

    @TempDir
    Path dir;

    @Test
    void aRecordCutShortAtTheTailIsTruncatedAndTheSequenceContinuesAfterTheLastWholeOne() throws IOException {
        write(100);
        Path file = onlySegment();
        long size = Files.size(file);
        truncate(file, size - 10);

        try (SegmentLog log = SegmentLog.open(dir, CONFIG)) {
            assertThat(log.lastSequence()).isEqualTo(99);
            assertThat(log.stats().truncatedTailBytes()).isEqualTo(frameBytes(100) - 10);
            assertThat(Files.size(file)).isEqualTo(size - frameBytes(100));
            assertThat(sequences(readAll(log.reader(1)))).containsExactlyElementsOf(range(1, 99));
            appendRecords(log, 100, 101);
        }
        try (SegmentLog log = SegmentLog.open(dir, CONFIG)) {
            assertThat(log.stats().truncatedTailBytes()).isZero();
            List<StoredRecord> records = readAll(log.reader(1));
            assertThat(sequences(records)).containsExactlyElementsOf(range(1, 101));
            records.forEach(LogFixtures::assertContents);
        }
    }

    @Test
    void garbageAfterTheLastRecordIsTruncatedAndCounted() throws IOException {
        write(50);
        Path file = onlySegment();
        long size = Files.size(file);
        byte[] garbage = new byte[37];
        new Random(17).nextBytes(garbage);
        Files.write(file, garbage, StandardOpenOption.APPEND);

        try (SegmentLog log = SegmentLog.open(dir, CONFIG)) {
            assertThat(log.stats().truncatedTailBytes()).isEqualTo(37);
            assertThat(Files.size(file)).isEqualTo(size);
            assertThat(log.lastSequence()).isEqualTo(50);
            assertThat(log.append("after", null, new byte[] {1})).isEqualTo(51);
        }
        try (SegmentLog log = SegmentLog.open(dir, CONFIG)) {
            assertThat(log.stats().truncatedTailBytes()).isZero();
            assertThat(sequences(readAll(log.reader(1)))).containsExactlyElementsOf(range(1, 51));
        }
    }

    @Test
    void aHalfWrittenRecordAfterAnIndexEntryIsTruncatedToo() throws IOException {
        write(1_000); // many index entries: recovery starts from the last one, not from 0
        Path file = onlySegment();
        long size = Files.size(file);
        truncate(file, size - frameBytes(1_000) - 3);

        try (SegmentLog log = SegmentLog.open(dir, CONFIG)) {
            assertThat(log.lastSequence()).isEqualTo(998);
            assertThat(log.stats().truncatedTailBytes()).isEqualTo(frameBytes(999) - 3);
            assertThat(sequences(readAll(log.reader(990)))).containsExactlyElementsOf(range(990, 998));
        }
    }

    @Test
    void aCorruptRecordInTheMiddleIsSkippedNeverDeliveredAndCountedOnce() throws IOException {
        write(1_000);
        flipByteInRecord(onlySegment(), 40);

        try (SegmentLog log = SegmentLog.open(dir, CONFIG)) {
            assertThat(log.stats().corruptRecordsSkipped()).as("recovery scans only the tail").isZero();
            List<StoredRecord> records = readAll(log.reader(1));
            assertThat(sequences(records)).hasSize(999).doesNotContain(40L).contains(39L, 41L);
            records.forEach(LogFixtures::assertContents);
            assertThat(log.stats().corruptRecordsSkipped()).isEqualTo(1);
            assertThat(log.stats().truncatedTailBytes()).isZero();
            assertThat(sequences(readAll(log.reader(40)))).first().isEqualTo(41L);
            assertThat(log.stats().corruptRecordsSkipped()).as("the same record, seen twice").isEqualTo(1);
            assertThat(log.append("after", null, new byte[] {1})).isEqualTo(1_001);
        }
    }

    @Test
    void aCorruptRecordInTheTailRecoveryScansIsFoundAtOpenAndTheRecordsAfterItKept() throws IOException {
        write(1_000);
        long corrupt = lastIndexedSequence(1_000) + 1; // after the last index entry: in the scanned tail
        assertThat(corrupt).isLessThan(1_000);
        flipByteInRecord(onlySegment(), corrupt);

        try (SegmentLog log = SegmentLog.open(dir, CONFIG)) {
            assertThat(log.stats().corruptRecordsSkipped()).isEqualTo(1);
            assertThat(log.stats().truncatedTailBytes()).isZero();
            assertThat(log.lastSequence()).isEqualTo(1_000);
            List<StoredRecord> records = readAll(log.reader(corrupt - 1));
            assertThat(sequences(records)).doesNotContain(corrupt).contains(corrupt - 1, corrupt + 1, 1_000L)
                    .hasSize((int) (1_000 - corrupt + 1));
            assertThat(log.stats().corruptRecordsSkipped()).isEqualTo(1);
            assertThat(log.append("after", null, new byte[] {1})).isEqualTo(1_001);
        }
    }

    /** @return the sequence of the last index entry, as {@link Segment} places them */
    private static long lastIndexedSequence(long count) {
        long position = 0;
        long indexedAt = 0;
        long indexed = 1;
        for (long s = 1; s <= count; s++) {
            if (position - indexedAt >= SegmentIndex.INTERVAL_BYTES) {
                indexedAt = position;
                indexed = s;
            }
            position += frameBytes(s);
        }
        return indexed;
    }

    private void write(long count) {
        try (SegmentLog log = SegmentLog.open(dir, CONFIG)) {
            appendRecords(log, 1, count);
        }
    }

    private Path onlySegment() throws IOException {
        List<Path> files = segmentFiles(dir);
        assertThat(files).hasSize(1);
        return files.get(0);
    }

    /** Flips one payload byte of record {@code sequence}: its CRC no longer matches. */
    private static void flipByteInRecord(Path file, long sequence) throws IOException {
        long position = 0;
        for (long s = 1; s < sequence; s++) {
            position += frameBytes(s);
        }
        long at = position + frameBytes(sequence) - 6; // inside the payload, before the CRC
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, at);
            one.flip();
            byte flipped = (byte) (one.get(0) ^ 0x5A);
            channel.write(ByteBuffer.wrap(new byte[] {flipped}), at);
        }
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }
}
