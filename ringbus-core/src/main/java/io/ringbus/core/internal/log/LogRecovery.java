package io.ringbus.core.internal.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * What opening a log directory found: its segments, oldest first, each recovered (see
 * {@link Segment#recover}), and what recovery did. Rolled segments with a valid seal are taken from
 * it; the last segment and any rolled one without a valid seal are scanned from their last index
 * entry that matches the log.
 *
 * @param segments        the segments, oldest first; one empty segment for a new log
 * @param truncatedBytes  torn-tail bytes cut off
 * @param corruptRecords  sequences lost to corrupt records between valid ones
 * @param readBytes       bytes read from segment and index files
 * @param scannedSegments segments scanned (no valid seal)
 */
record LogRecovery(Segment[] segments, long truncatedBytes, long corruptRecords, long readBytes,
                   int scannedSegments) {

    /**
     * Opens and recovers every segment in {@code dir} (created if missing); an index without its log
     * is deleted.
     *
     * @throws UncheckedIOException naming the directory when a file cannot be read or repaired
     */
    static LogRecovery recover(Path dir, DurableFiles files) {
        List<Segment> opened = new ArrayList<>();
        try {
            files.createDirectories(dir);
            long truncated = 0;
            long corrupt = 0;
            long read = 0;
            int scanned = 0;
            FrameCursor cursor = new FrameCursor();
            CRC32C crc = new CRC32C();
            long[] bases = bases(dir, files);
            for (int i = 0; i < bases.length; i++) {
                Segment segment = Segment.open(dir, bases[i], files);
                opened.add(segment);
                Segment.Recovery recovery = segment.recover(cursor, i == bases.length - 1, crc);
                truncated += recovery.truncatedBytes();
                corrupt += recovery.corruptRecords();
                read += recovery.readBytes();
                scanned += recovery.scanned() ? 1 : 0;
            }
            if (opened.isEmpty()) {
                opened.add(Segment.create(dir, 1, files));
            }
            return new LogRecovery(opened.toArray(new Segment[0]), truncated, corrupt, read, scanned);
        } catch (IOException e) {
            for (Segment segment : opened) {
                SegmentLog.closeQuietly(segment);
            }
            throw new UncheckedIOException("cannot open log " + dir + ": " + e + " (check that the directory and its"
                    + " files are readable and writable by this user; a segment that cannot be read can be moved"
                    + " away, losing its records)", e);
        }
    }

    /** @return the base sequences of the segment files, ascending; an index without its log is deleted */
    private static long[] bases(Path dir, DurableFiles files) throws IOException {
        Set<Long> bases = new HashSet<>();
        List<Path> indexes = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(dir)) {
            for (Path file : listing) {
                String name = file.getFileName().toString();
                if (name.length() == 24 && name.endsWith(".log") && isDigits(name, 20)) {
                    bases.add(Long.parseLong(name.substring(0, 20)));
                } else if (name.length() == 24 && name.endsWith(".idx") && isDigits(name, 20)) {
                    indexes.add(file);
                }
            }
        }
        for (Path index : indexes) {
            String name = index.getFileName().toString();
            if (!bases.contains(Long.parseLong(name.substring(0, 20)))) {
                files.delete(index);
            }
        }
        return bases.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private static boolean isDigits(String s, int count) {
        for (int i = 0; i < count; i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
