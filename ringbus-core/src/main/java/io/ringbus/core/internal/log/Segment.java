package io.ringbus.core.internal.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/**
 * One segment: the log file {@code <base>.log} holding records from sequence {@code base} on, and
 * its sparse {@link SegmentIndex} {@code <base>.idx}.
 *
 * <p><b>Recovery.</b> A rolled segment is <em>sealed</em>: once its log file is forced, a
 * {@link SegmentSeal} is written at the end of its index and the index forced. Opening a sealed
 * segment reads the seal and checks the log's size, nothing else (an unforced seal, written under
 * the OS policy, also the last record it names; {@link #recover}); its index is loaded on first use. A segment without a valid seal (the active one, or one rolled just before
 * a crash) is recovered from its last index entry that matches the log: the active segment's index
 * is forced every {@link LogConfig#indexCheckpointBytes()} by the flusher, so a power cut leaves at
 * most that much (plus what was appended since the last force) to scan.
 *
 * <p>Appends (and the index) are written by one thread at a time, under the log's append lock;
 * {@link #size()} publishes them to readers, which read with positional reads.
 */
final class Segment {
    private static final Logger LOG = LoggerFactory.getLogger(Segment.class);

    final long baseSequence;
    final Path logFile;
    final Path indexFile;
    final FileChannel log;
    private final SegmentIndex index;
    private final DurableFiles files;
    /** Committed bytes: whole frames only; the volatile write publishes an append to readers. */
    private volatile long size;
    private volatile long lastSequence;
    private volatile long lastTimestamp;
    /** Where the last record's frame starts. */
    private volatile long lastPosition;
    /** Records with headers, -1 when not known (recovered from an index entry past the first record). */
    private volatile long headerRecords;
    /** Appended to since the last {@link #force()}. */
    private volatile boolean unforced;
    /** The seal is written (or was found at open), or the segment is empty. */
    private volatile boolean sealed;
    /** The seal is forced (written after the log was forced), or the segment is empty: nothing left to seal. */
    private volatile boolean sealForced;
    /** The log size when the index was last forced (flusher). */
    private long indexForcedAt;
    /** A failed write may have left bytes after {@link #size}: cut them before the next append. */
    private boolean truncatePending;
    private final Set<Long> corruptPositions = ConcurrentHashMap.newKeySet();

    private Segment(Path dir, long baseSequence, boolean create, boolean durableName, DurableFiles files)
            throws IOException {
        this.baseSequence = baseSequence;
        this.logFile = dir.resolve(name(baseSequence, ".log"));
        this.indexFile = dir.resolve(name(baseSequence, ".idx"));
        this.files = files;
        // The index first, its name not forced: the log's creation below forces the directory, which
        // makes both names durable; an index lost anyway is rebuilt from the log.
        FileChannel idx = files.openOrCreate(indexFile, false);
        FileChannel logChannel;
        try {
            if (create) {
                idx.truncate(0); // a stale index of an earlier segment of this base
                logChannel = files.openOrCreate(logFile, durableName);
            } else {
                logChannel = FileChannel.open(logFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
            }
        } catch (IOException e) {
            idx.close();
            throw e;
        }
        this.index = new SegmentIndex(indexFile, idx, baseSequence);
        this.log = logChannel;
        this.lastSequence = baseSequence - 1;
        this.headerRecords = create ? 0 : -1;
    }

    /**
     * Creates an empty segment starting at {@code baseSequence}; its name is durable (the directory
     * forced, unless {@code files} does not sync) before this returns, so before any record in it
     * can be acknowledged.
     */
    static Segment create(Path dir, long baseSequence, DurableFiles files) throws IOException {
        return new Segment(dir, baseSequence, true, true, files);
    }

    /**
     * Creates an empty segment whose name is not forced yet: the caller forces the directory before
     * any record in it is reported durable (a log's flusher does, off the appending thread).
     */
    static Segment createUnsynced(Path dir, long baseSequence, DurableFiles files) throws IOException {
        return new Segment(dir, baseSequence, true, false, files);
    }

    /** Opens an existing segment; call {@link #recover} before using it. */
    static Segment open(Path dir, long baseSequence, DurableFiles files) throws IOException {
        return new Segment(dir, baseSequence, false, false, files);
    }

    /** @return {@code 00000000000000000042.log} for base 42 */
    static String name(long baseSequence, String suffix) {
        String digits = Long.toString(baseSequence); // not String.format: open names every segment, before the JIT
        return "0".repeat(20 - digits.length()) + digits + suffix;
    }

    /**
     * Finds the end of the valid data. A segment that is not the log's last one and has a valid
     * seal matching its log file (same size, the last record where the seal says) is taken as the
     * seal describes it, reading nothing more. Otherwise: trusts the index entries that match the
     * log, scans from the last of them, skips corrupt records in between (counted) and truncates a
     * torn tail (counted).
     *
     * @param cursor a cursor to read with; counts the log bytes read
     * @param last   whether this is the log's last segment (appended to next: never taken as sealed)
     */
    Recovery recover(FrameCursor cursor, boolean last, CRC32C crc) throws IOException {
        long logBytesBefore = cursor.bytesRead();
        long fileSize = log.size();
        long indexBytes = 0;
        if (!last) {
            SegmentSeal seal = index.readSeal(crc);
            indexBytes += SegmentSeal.BYTES;
            if (seal != null && matches(seal, fileSize, cursor)) {
                size = seal.size();
                lastSequence = seal.lastSequence();
                lastTimestamp = seal.lastTimestamp();
                lastPosition = seal.lastPosition();
                headerRecords = seal.headerRecords();
                sealed = true;
                sealForced = seal.forced();
                unforced = !seal.forced(); // forced (log first) before its seal is
                index.deferLoad(seal);
                return new Recovery(0, 0, indexBytes + cursor.bytesRead() - logBytesBefore, false);
            }
            if (seal != null) {
                LOG.warn("{}: its seal (size {}, last sequence {}) does not match the log ({} bytes); recovered by a"
                        + " scan", logFile, seal.size(), seal.lastSequence(), fileSize);
            }
        }
        indexBytes += index.load(log, fileSize, cursor);
        int count = index.count();
        long from = count == 0 ? 0 : index.entryPosition(count - 1);
        long after = count == 0 ? baseSequence - 1 : index.entrySequence(count - 1) - 1;
        index.truncateToEntries(files.syncs());
        cursor.reset(log, from, fileSize, after);
        lastSequence = after;
        headerRecords = from == 0 ? 0 : -1;
        long corrupt = 0;
        long truncated = 0;
        long end = from;
        while (true) {
            int result = cursor.next();
            if (result == FrameCursor.FRAME) {
                long sequence = cursor.lastSequence();
                if (cursor.skippedFrom() >= 0) {
                    long lost = Math.max(1, sequence - lastSequence - 1);
                    corrupt += lost;
                    corruptPositions.add(cursor.skippedFrom());
                    LOG.warn("{}: corrupt record(s) at position {} skipped: {} sequence(s) lost before {}",
                            logFile, cursor.skippedFrom(), lost, sequence);
                }
                int frame = cursor.frameOffset();
                long timestamp = cursor.buffer().getLong(frame + RecordFrame.TIMESTAMP_OFFSET);
                index.indexIfDue(sequence, timestamp, cursor.framePosition());
                if (headerRecords >= 0 && RecordFrame.hasHeaders(cursor.buffer(), frame)) {
                    headerRecords++;
                }
                lastSequence = sequence;
                lastTimestamp = timestamp;
                lastPosition = cursor.framePosition();
                end = cursor.framePosition() + cursor.frameBytes();
            } else {
                if (result == FrameCursor.TORN) {
                    end = cursor.skippedFrom();
                    truncated = fileSize - end;
                    log.truncate(end);
                    files.repaired(logFile, "torn tail of " + truncated + " bytes after position " + end
                            + " truncated (the last valid record ends there)");
                }
                break;
            }
        }
        size = end;
        sealed = end == 0;
        sealForced = end == 0;
        // What the scan found may be in the page cache only (a killed process): forced before its seal.
        unforced = !last && end > 0;
        return new Recovery(truncated, corrupt, indexBytes + cursor.bytesRead() - logBytesBefore, true);
    }

    /**
     * @return whether the log file ends where {@code seal} says; for a seal that was not forced after
     *         the log (OS), also with the record it names there
     */
    private boolean matches(SegmentSeal seal, long fileSize, FrameCursor cursor) throws IOException {
        if (seal.size() != fileSize || seal.lastSequence() < baseSequence) {
            return false;
        }
        if (seal.forced()) {
            return true; // written after the log's fsync: what the log held then is on the disk
        }
        cursor.reset(log, seal.lastPosition(), fileSize, seal.lastSequence() - 1);
        return cursor.next() == FrameCursor.FRAME && cursor.skippedFrom() < 0
                && cursor.lastSequence() == seal.lastSequence()
                && cursor.framePosition() + cursor.frameBytes() == fileSize
                && cursor.buffer().getLong(cursor.frameOffset() + RecordFrame.TIMESTAMP_OFFSET) == seal.lastTimestamp();
    }

    /**
     * What {@link #recover} found.
     *
     * @param truncatedBytes torn tail bytes cut off
     * @param corruptRecords sequences lost to corrupt records between valid ones
     * @param readBytes      bytes read from the log and index files
     * @param scanned        whether the segment was scanned (no valid seal)
     */
    record Recovery(long truncatedBytes, long corruptRecords, long readBytes, boolean scanned) {
    }

    /**
     * Appends one encoded frame (position to limit of {@code frame}). On failure the bytes written
     * are cut off, now or before the next append, and nothing is published.
     *
     * @param headers whether the record carries headers
     */
    void append(ByteBuffer frame, long sequence, long timestamp, boolean headers) throws IOException {
        long at = size;
        if (truncatePending) {
            log.truncate(at);
            truncatePending = false;
        }
        int bytes = frame.remaining();
        try {
            while (frame.hasRemaining()) {
                log.write(frame, at + bytes - frame.remaining());
            }
        } catch (IOException e) {
            truncatePending = true;
            try {
                log.truncate(at);
                truncatePending = false;
            } catch (IOException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        index.indexIfDue(sequence, timestamp, at);
        unforced = true;
        if (headers && headerRecords >= 0) {
            headerRecords = headerRecords + 1; // only the appending thread writes it
        }
        lastSequence = sequence;
        lastTimestamp = timestamp;
        lastPosition = at;
        size = at + bytes;
    }

    /**
     * Seals this rolled segment, once it gets no more appends: with {@code force} (the flusher, or
     * close) forces its log if appended to since its last force, writes the seal (or marks forced the
     * one written without) and forces the index; without (the OS policy, at the roll, on the
     * appending thread) writes the seal, forcing nothing. An empty segment needs no seal.
     */
    void seal(boolean force) throws IOException {
        if (sealForced || sealed && !force) {
            return;
        }
        if (size > 0) {
            if (force && unforced) {
                force();
            }
            if (sealed) {
                index.forceSeal();
            } else {
                index.writeSeal(size, lastSequence, lastTimestamp, lastPosition, headerRecords, force);
            }
        }
        sealed = true;
        sealForced = force || size == 0;
    }

    /**
     * @param forced whether the seal must be forced
     * @return whether the seal is written (forced, when asked), or not needed
     */
    boolean sealed(boolean forced) {
        return forced ? sealForced : sealed;
    }

    /**
     * Forces the index when the log grew at least {@code every} bytes since the index was last
     * forced (the flusher, before it forces the log, so the entries forced point at records the log
     * force that follows makes durable).
     *
     * @return whether the index was forced
     */
    boolean checkpointIndex(long every) throws IOException {
        long at = size;
        if (at - indexForcedAt < every) {
            return false;
        }
        index.force();
        indexForcedAt = at;
        return true;
    }

    /** Forces the index (close). */
    void forceIndex() throws IOException {
        index.force();
        indexForcedAt = size;
    }

    /**
     * Loads a sealed segment's index if it was not yet (a reader's first seek into it).
     *
     * @return bytes read to load it, 0 when it was loaded
     */
    long loadIndex() throws IOException {
        return index.ensureLoaded(log, size);
    }

    /** @return the last index entry with a sequence {@code <= sequence}, or -1; {@link #loadIndex} first */
    int entryForSequence(long sequence) {
        return index.entryForSequence(sequence);
    }

    /** @return the last index entry with a timestamp {@code < millis}, or -1; {@link #loadIndex} first */
    int entryBeforeTime(long millis) {
        return index.entryBeforeTime(millis);
    }

    /** @return the sequence of index entry {@code i} */
    long entrySequence(int i) {
        return index.entrySequence(i);
    }

    /** @return the file position of index entry {@code i} */
    long entryPosition(int i) {
        return index.entryPosition(i);
    }

    /** Records a corrupt frame a reader skipped; @return true the first time it is seen */
    boolean reportCorrupt(long position) {
        if (corruptPositions.add(position)) {
            LOG.warn("{}: corrupt record at position {} skipped", logFile, position);
            return true;
        }
        return false;
    }

    /** Forces the log file's data to the disk. */
    void force() throws IOException {
        unforced = false; // before the force: an append racing with it sets it again
        log.force(false);
    }

    /** @return whether records were appended since the last {@link #force()} */
    boolean unforced() {
        return unforced;
    }

    long size() {
        return size;
    }

    long lastSequence() {
        return lastSequence;
    }

    long lastTimestamp() {
        return lastTimestamp;
    }

    /** @return records carrying headers, -1 when not known */
    long headerRecords() {
        return headerRecords;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return the records this segment holds, counting any lost to corruption */
    long records() {
        return isEmpty() ? 0 : lastSequence - baseSequence + 1;
    }

    /** Closes the files. */
    void close() throws IOException {
        try {
            index.close();
        } finally {
            log.close();
        }
    }

    /** Closes and deletes the files durably (retention): the directory is forced after the unlinks. */
    void delete() throws IOException {
        close();
        files.delete(logFile, indexFile);
    }

    /** Closes and unlinks the files; the caller forces the directory (a log's flusher). */
    void unlink() throws IOException {
        close();
        files.unlink(logFile, indexFile);
    }
}
