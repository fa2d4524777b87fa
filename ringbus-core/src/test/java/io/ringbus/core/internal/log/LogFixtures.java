package io.ringbus.core.internal.log;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Records with contents derived from their sequence, and helpers to read a log back. */
final class LogFixtures {
    private LogFixtures() {
    }

    static String subject(long sequence) {
        return "orders." + (sequence % 7);
    }

    static byte[] headers(long sequence) {
        return sequence % 3 == 0 ? ("h:" + sequence).getBytes(StandardCharsets.UTF_8) : null;
    }

    static byte[] payload(long sequence) {
        return ("payload-" + sequence + "-" + "x".repeat((int) (sequence % 50))).getBytes(StandardCharsets.UTF_8);
    }

    /** Appends records 1..count (expects the log to be empty or at count's start). */
    static void appendRecords(SegmentLog log, long from, long to) {
        for (long sequence = from; sequence <= to; sequence++) {
            long got = log.append(subject(sequence), headers(sequence), payload(sequence));
            if (got != sequence) {
                throw new AssertionError("append returned " + got + ", expected " + sequence);
            }
        }
    }

    /** @return the frame size of record {@code sequence} as appended by {@link #appendRecords} */
    static int frameBytes(long sequence) {
        byte[] headers = headers(sequence);
        return RecordFrame.frameBytes(subject(sequence).length(), headers == null ? 0 : headers.length,
                payload(sequence).length);
    }

    /** Reads to the end, copying every record. */
    static List<StoredRecord> readAll(LogReader reader) {
        List<StoredRecord> records = new ArrayList<>();
        for (LogRecord record = reader.next(); record != null; record = reader.next()) {
            records.add(record.copy());
        }
        return records;
    }

    /** @return the sequences of {@code records} */
    static List<Long> sequences(List<StoredRecord> records) {
        return records.stream().map(StoredRecord::sequence).toList();
    }

    /** Throws unless {@code record} has the contents {@link #appendRecords} gave its sequence. */
    static void assertContents(StoredRecord record) {
        long sequence = record.sequence();
        byte[] headers = headers(sequence);
        if (!record.subject().equals(subject(sequence))
                || !java.util.Arrays.equals(record.headers(), headers == null ? new byte[0] : headers)
                || !java.util.Arrays.equals(record.payload(), payload(sequence))) {
            throw new AssertionError("record " + sequence + " has the wrong contents: " + record);
        }
    }

    /** @return the segment log files in {@code dir}, oldest first */
    static List<Path> segmentFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        }
    }
}
