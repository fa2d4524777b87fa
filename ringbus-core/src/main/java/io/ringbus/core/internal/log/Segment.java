package io.ringbus.core.internal.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One segment: the log file {@code <base>.log} holding records from sequence {@code base} on, and
 * its sparse index {@code <base>.idx}: an entry (sequence, timestamp, position; 24 bytes, big-endian)
 * for the first record and for the first record at least {@link #INDEX_INTERVAL_BYTES} after the
 * previous entry. The index file is never forced: {@link #recover} trusts it only as far as it
 * matches the log, and rebuilds the rest from the log.
 *
 * <p>Appends (and the index) are written by one thread at a time, under the log's append lock;
 * {@link #size()} publishes them to readers, which read with positional reads.
 */
final class Segment {
    /** Log bytes between two index entries, at least. */
    static final int INDEX_INTERVAL_BYTES = 4096;
    /** Bytes of one index entry. */
    static final int INDEX_ENTRY_BYTES = 24;

    private static final Logger LOG = LoggerFactory.getLogger(Segment.class);

    final long baseSequence;
    final Path logFile;
    final Path indexFile;
    final FileChannel log;
    private final FileChannel index;
    private final DurableFiles files;
    private final ByteBuffer indexEntry = ByteBuffer.allocateDirect(INDEX_ENTRY_BYTES);
    /** Triples (sequence, timestamp, position); replaced, never changed, when it grows. */
    private volatile long[] entries = new long[3 * 64];
    private volatile int entryCount;
    private long lastIndexedPosition;
    /** Committed bytes: whole frames only; the volatile write publishes an append to readers. */
    private volatile long size;
    private volatile long lastSequence;
    private volatile long lastTimestamp;
    /** Appended to since the last {@link #force()}. */
    private volatile boolean unforced;
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
        this.index = idx;
        this.log = logChannel;
        this.lastSequence = baseSequence - 1;
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
        return String.format("%020d%s", baseSequence, suffix);
    }

    /**
     * Finds the end of the valid data: trusts the index entries that match the log, scans from the
     * last of them, skips corrupt records in between (counted) and truncates a torn tail (counted).
     */
    Recovery recover(FrameCursor cursor) throws IOException {
        long fileSize = log.size();
        loadIndex(fileSize, cursor);
        int count = entryCount;
        long from = count == 0 ? 0 : entries[3 * (count - 1) + 2];
        long after = count == 0 ? baseSequence - 1 : entries[3 * (count - 1)] - 1;
        index.truncate((long) count * INDEX_ENTRY_BYTES);
        cursor.reset(log, from, fileSize, after);
        lastSequence = after;
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
                long timestamp = cursor.buffer().getLong(cursor.frameOffset() + RecordFrame.TIMESTAMP_OFFSET);
                indexIfDue(sequence, timestamp, cursor.framePosition());
                lastSequence = sequence;
                lastTimestamp = timestamp;
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
        return new Recovery(truncated, corrupt);
    }

    /** What {@link #recover} found. */
    record Recovery(long truncatedBytes, long corruptRecords) {
    }

    private void loadIndex(long fileSize, FrameCursor cursor) throws IOException {
        long entriesInFile = index.size() / INDEX_ENTRY_BYTES;
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(entriesInFile, 1 << 20) * INDEX_ENTRY_BYTES);
        while (buffer.hasRemaining() && index.read(buffer, buffer.position()) >= 0) {
            // read it all
        }
        buffer.flip();
        long previousSequence = baseSequence - 1;
        long previousPosition = -1;
        while (buffer.remaining() >= INDEX_ENTRY_BYTES) {
            long sequence = buffer.getLong();
            long timestamp = buffer.getLong();
            long position = buffer.getLong();
            if (sequence <= previousSequence || position <= previousPosition || position >= fileSize) {
                break; // the index was written past what the log kept, or is garbage from here
            }
            addEntry(sequence, timestamp, position);
            previousSequence = sequence;
            previousPosition = position;
        }
        // Trust the last entries only if the log has the record they point at (the index is not forced).
        while (entryCount > 0) {
            int last = 3 * (entryCount - 1);
            cursor.reset(log, entries[last + 2], fileSize, entries[last] - 1);
            if (cursor.next() == FrameCursor.FRAME && cursor.skippedFrom() < 0
                    && cursor.lastSequence() == entries[last]) {
                break;
            }
            entryCount--;
        }
        lastIndexedPosition = entryCount == 0 ? 0 : entries[3 * (entryCount - 1) + 2];
    }

    /**
     * Appends one encoded frame (position to limit of {@code frame}). On failure the bytes written
     * are cut off, now or before the next append, and nothing is published.
     */
    void append(ByteBuffer frame, long sequence, long timestamp) throws IOException {
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
        indexIfDue(sequence, timestamp, at);
        unforced = true;
        lastSequence = sequence;
        lastTimestamp = timestamp;
        size = at + bytes;
    }

    private void indexIfDue(long sequence, long timestamp, long position) {
        if (entryCount > 0 && position - lastIndexedPosition < INDEX_INTERVAL_BYTES) {
            return;
        }
        int slot = entryCount;
        addEntry(sequence, timestamp, position);
        lastIndexedPosition = position;
        indexEntry.clear();
        indexEntry.putLong(sequence).putLong(timestamp).putLong(position).flip();
        try {
            while (indexEntry.hasRemaining()) {
                index.write(indexEntry, (long) slot * INDEX_ENTRY_BYTES + indexEntry.position());
            }
        } catch (IOException e) {
            // The index file is a cache of the log: recovery rebuilds what is missing.
            LOG.debug("{}: index entry not written: {}", indexFile, e.toString());
        }
    }

    private void addEntry(long sequence, long timestamp, long position) {
        long[] array = entries;
        int at = 3 * entryCount;
        if (at + 3 > array.length) {
            array = Arrays.copyOf(array, array.length * 2);
            entries = array; // published before the count that needs it
        }
        array[at] = sequence;
        array[at + 1] = timestamp;
        array[at + 2] = position;
        entryCount = entryCount + 1;
    }

    /** @return the last index entry with a sequence {@code <= sequence}, or -1 */
    int entryForSequence(long sequence) {
        return findEntry(sequence, 0);
    }

    /** @return the last index entry with a timestamp {@code < millis}, or -1 */
    int entryBeforeTime(long millis) {
        return findEntry(millis - 1, 1);
    }

    /** @return the sequence of index entry {@code i} */
    long entrySequence(int i) {
        return entries[3 * i];
    }

    /** @return the file position of index entry {@code i} */
    long entryPosition(int i) {
        return entries[3 * i + 2];
    }

    /** Binary search for the last entry whose field {@code field} is {@code <= key}. */
    private int findEntry(long key, int field) {
        int count = entryCount; // read before the array: a newer array holds every counted entry
        long[] array = entries;
        int low = 0;
        int high = count - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (array[3 * mid + field] <= key) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
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
