package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static io.ringbus.core.internal.log.LogFixtures.appendRecords;
import static io.ringbus.core.internal.log.LogFixtures.assertContents;
import static io.ringbus.core.internal.log.LogFixtures.readAll;
import static io.ringbus.core.internal.log.LogFixtures.segmentFiles;
import static io.ringbus.core.internal.log.LogFixtures.sequences;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SegmentLogTest {
    private static final LogConfig SMALL_SEGMENTS = LogConfig.builder().segmentBytes(16 * 1024)
            .policy(FsyncPolicy.OS).build();

    @TempDir
    Path dir;

    @Test
    void readsBackEveryRecordInOrderAcrossSegmentsAndAfterReopen() throws IOException {
        int count = 2_000;
        try (SegmentLog log = SegmentLog.open(dir, SMALL_SEGMENTS)) {
            appendRecords(log, 1, count);
            assertThat(log.stats().segments()).isGreaterThan(5);
            assertThat(segmentFiles(dir)).hasSize(log.stats().segments());
            List<StoredRecord> records = readAll(log.reader(1));
            assertThat(sequences(records)).containsExactlyElementsOf(range(1, count));
            records.forEach(LogFixtures::assertContents);
        }
        try (SegmentLog log = SegmentLog.open(dir, SMALL_SEGMENTS)) {
            assertThat(log.firstSequence()).isEqualTo(1);
            assertThat(log.lastSequence()).isEqualTo(count);
            assertThat(log.stats().truncatedTailBytes()).isZero();
            assertThat(log.stats().corruptRecordsSkipped()).isZero();
            List<StoredRecord> records = readAll(log.reader(1));
            assertThat(sequences(records)).containsExactlyElementsOf(range(1, count));
            records.forEach(LogFixtures::assertContents);
            assertThat(log.append(LogFixtures.subject(count + 1), null, LogFixtures.payload(count + 1)))
                    .isEqualTo(count + 1);
        }
    }

    @Test
    void seeksBySequenceThroughTheIndexBeforeAndAfterReopenAndWithoutIndexFiles() throws IOException {
        int count = 2_000;
        try (SegmentLog log = SegmentLog.open(dir, SMALL_SEGMENTS)) {
            appendRecords(log, 1, count);
            assertSeeksBySequence(log, count);
        }
        try (SegmentLog log = SegmentLog.open(dir, SMALL_SEGMENTS)) {
            assertSeeksBySequence(log, count);
        }
        try (var files = Files.list(dir)) {
            for (Path index : files.filter(f -> f.toString().endsWith(".idx")).toList()) {
                Files.delete(index);
            }
        }
        try (SegmentLog log = SegmentLog.open(dir, SMALL_SEGMENTS)) {
            assertSeeksBySequence(log, count);
        }
    }

    private static void assertSeeksBySequence(SegmentLog log, long count) {
        for (long from : new long[] {-5, 0, 1, 2, 150, 151, 999, 1000, count - 1, count}) {
            LogRecord first = log.reader(from).next();
            assertThat(first).as("reader(%d)", from).isNotNull();
            assertThat(first.sequence()).as("reader(%d)", from).isEqualTo(Math.max(1, from));
            assertContents(first.copy());
        }
        assertThat(log.reader(count + 1).next()).isNull();
        List<StoredRecord> tail = readAll(log.reader(1234));
        assertThat(sequences(tail)).containsExactlyElementsOf(range(1234, count));
    }

    @Test
    void seeksByTimeToTheFirstRecordAppendedAtOrAfterIt() throws InterruptedException {
        try (SegmentLog log = SegmentLog.open(dir, SMALL_SEGMENTS)) {
            for (int batch = 0; batch < 20; batch++) {
                appendRecords(log, batch * 100L + 1, batch * 100L + 100);
                Thread.sleep(2); // several distinct timestamps, so that seeking by time has something to find
            }
            List<StoredRecord> all = readAll(log.reader(1));
            List<Long> times = all.stream().map(StoredRecord::timestampMillis).distinct().toList();
            assertThat(times).hasSizeGreaterThan(5);
            for (long millis : times) {
                StoredRecord expected = all.stream().filter(r -> r.timestampMillis() >= millis).findFirst().orElseThrow();
                LogRecord first = log.readerFromTime(Instant.ofEpochMilli(millis)).next();
                assertThat(first.sequence()).as("readerFromTime(%d)", millis).isEqualTo(expected.sequence());
            }
            assertThat(log.readerFromTime(Instant.ofEpochMilli(0)).next().sequence()).isEqualTo(1);
            long after = times.get(times.size() - 1) + 1;
            assertThat(log.readerFromTime(Instant.ofEpochMilli(after)).next()).isNull();
        }
    }

    @Test
    void aReaderFollowsAppendsFromAnotherThread() throws InterruptedException {
        int count = 5_000;
        try (SegmentLog log = SegmentLog.open(dir, SMALL_SEGMENTS)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    appendRecords(log, 1, count);
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            LogReader reader = log.reader(1);
            long expected = 1;
            while (expected <= count && failure.get() == null) {
                LogRecord record = reader.next();
                if (record == null) {
                    Thread.onSpinWait();
                    continue;
                }
                assertThat(record.sequence()).isEqualTo(expected);
                assertContents(record.copy());
                expected++;
            }
            writer.join();
            assertThat(failure.get()).isNull();
            assertThat(expected).isEqualTo(count + 1);
        }
    }

    @Test
    void rejectsRecordsOverTheLimitNamingTheSizes() {
        try (SegmentLog log = SegmentLog.open(dir, LogConfig.builder().maxRecordBytes(100).policy(FsyncPolicy.OS)
                .build())) {
            assertThatThrownBy(() -> log.append("s", null, new byte[100]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRecordBytes=100");
            assertThat(log.append("s", null, new byte[99])).isEqualTo(1);
            assertThatThrownBy(() -> log.awaitDurable(2)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sequence=2");
        }
    }

    @Test
    void configValidationNamesTheBadValue() {
        assertThatThrownBy(() -> LogConfig.builder().segmentBytes(10).build())
                .hasMessageContaining("segmentBytes=10");
        assertThatThrownBy(() -> LogConfig.builder().intervalMillis(0).build())
                .hasMessageContaining("intervalMillis=0");
        assertThatThrownBy(() -> LogConfig.builder().maxBytes(-1).build()).hasMessageContaining("maxBytes=-1");
        assertThatThrownBy(() -> LogConfig.builder().maxRecords(-1).build()).hasMessageContaining("maxRecords=-1");
        assertThatThrownBy(() -> LogConfig.builder().maxRecordBytes(0).build())
                .hasMessageContaining("maxRecordBytes=0");
    }

    @Test
    void encodesSubjectsAsUtf8() {
        try (SegmentLog log = SegmentLog.open(dir, SMALL_SEGMENTS)) {
            String subject = "prix.\u20ac.caf\u00e9.\ud83d\ude80";
            log.append(subject, new byte[] {1, 2}, new byte[] {3});
            StoredRecord record = log.reader(1).next().copy();
            assertThat(record.subject()).isEqualTo(subject);
            assertThat(record.headers()).containsExactly(1, 2);
            assertThat(record.payload()).containsExactly(3);
        }
    }

    static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }
}
