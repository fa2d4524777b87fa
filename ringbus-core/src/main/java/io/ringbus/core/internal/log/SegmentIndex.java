package io.ringbus.core.internal.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * A segment's sparse index: the file {@code <base>.idx} and its entries in memory. An entry
 * (sequence, timestamp, position; {@link #ENTRY_BYTES} bytes, big-endian) is kept for the segment's
 * first record and for the first record at least {@link #INTERVAL_BYTES} after the previous entry; a
 * rolled segment's file ends with its {@link SegmentSeal}.
 *
 * <p>The file is a cache of the log: recovery trusts entries only as far as they match the log.
 * An active segment's entries are loaded at open; a sealed segment's are loaded on first use
 * ({@link #ensureLoaded}), checked against the seal's CRC, and rebuilt from the log when they do not
 * match, so that opening a log reads no sealed index at all.
 *
 * <p>Threading: entries are added under the log's append lock (or at open); lookups run on any
 * thread: {@link #entries} is replaced, never changed in place, and published before the
 * {@link #count} that needs it. {@link #ensureLoaded} serializes loads with a lock.
 */
final class SegmentIndex {
    /** Log bytes between two index entries, at least. */
    static final int INTERVAL_BYTES = 4096;
    /** Bytes of one index entry. */
    static final int ENTRY_BYTES = 24;
    /** Entries read per chunk. */
    private static final int CHUNK_ENTRIES = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(SegmentIndex.class);

    final Path file;
    private final FileChannel channel;
    private final long baseSequence;
    private final ByteBuffer entryBuffer = ByteBuffer.allocateDirect(ENTRY_BYTES);
    private final ReentrantLock loadLock = new ReentrantLock();
    /** Triples (sequence, timestamp, position); replaced, never changed, when it grows. */
    private volatile long[] entries = new long[3 * 64];
    private volatile int count;
    /** False for a sealed segment whose entries were not read yet; {@link #seal} says how many there are. */
    private volatile boolean loaded = true;
    /** The seal read at open or last written; null before. */
    private SegmentSeal seal;
    private long lastIndexedPosition;

    SegmentIndex(Path file, FileChannel channel, long baseSequence) {
        this.file = file;
        this.channel = channel;
        this.baseSequence = baseSequence;
    }

    /** Adds (and writes) an entry for the record at {@code position} if one is due. Append lock. */
    void indexIfDue(long sequence, long timestamp, long position) {
        if (count > 0 && position - lastIndexedPosition < INTERVAL_BYTES) {
            return;
        }
        int slot = count;
        add(sequence, timestamp, position);
        lastIndexedPosition = position;
        entryBuffer.clear();
        entryBuffer.putLong(sequence).putLong(timestamp).putLong(position).flip();
        try {
            while (entryBuffer.hasRemaining()) {
                channel.write(entryBuffer, (long) slot * ENTRY_BYTES + entryBuffer.position());
            }
        } catch (IOException e) {
            // The index file is a cache of the log: recovery rebuilds what is missing.
            LOG.debug("{}: index entry not written: {}", file, e.toString());
        }
    }

    private void add(long sequence, long timestamp, long position) {
        long[] array = entries;
        int at = 3 * count;
        if (at + 3 > array.length) {
            array = Arrays.copyOf(array, array.length * 2);
            entries = array; // published before the count that needs it
        }
        array[at] = sequence;
        array[at + 1] = timestamp;
        array[at + 2] = position;
        count = count + 1;
    }

    /**
     * Reads the seal at the end of the file (open).
     *
     * @return the seal, or null when the file does not end with a whole one matching its entries
     */
    SegmentSeal readSeal(CRC32C crc) throws IOException {
        long fileBytes = channel.size();
        if (fileBytes < SegmentSeal.BYTES) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.allocate(SegmentSeal.BYTES);
        readFully(buffer, fileBytes - SegmentSeal.BYTES);
        buffer.flip();
        SegmentSeal read = SegmentSeal.decode(buffer, crc);
        if (read == null || read.entryCount() * ENTRY_BYTES + SegmentSeal.BYTES != fileBytes) {
            return null;
        }
        return read;
    }

    /** Leaves the entries of a sealed segment on the disk until first used (open). */
    void deferLoad(SegmentSeal found) {
        this.seal = found;
        this.count = 0;
        this.loaded = false;
    }

    /**
     * Loads the entries of an active (or unsealed) segment at open: those that increase and point
     * inside the log, then drops entries from the end until the last one points at the record it
     * names (the index may have been written past what the log kept).
     *
     * @return bytes read from the index file (the cursor counts what it reads of the log)
     */
    long load(FileChannel log, long logSize, FrameCursor cursor) throws IOException {
        long fileEntries = channel.size() / ENTRY_BYTES;
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK_ENTRIES * ENTRY_BYTES);
        long read = 0;
        long previousSequence = baseSequence - 1;
        long previousPosition = -1;
        scan:
        for (long at = 0; at < fileEntries; at += CHUNK_ENTRIES) {
            chunk.clear().limit((int) Math.min(CHUNK_ENTRIES, fileEntries - at) * ENTRY_BYTES);
            read += readFully(chunk, at * ENTRY_BYTES);
            chunk.flip();
            while (chunk.remaining() >= ENTRY_BYTES) {
                long sequence = chunk.getLong();
                long timestamp = chunk.getLong();
                long position = chunk.getLong();
                if (sequence <= previousSequence || position <= previousPosition || position >= logSize) {
                    break scan; // written past what the log kept, garbage, or a seal: the entries end here
                }
                add(sequence, timestamp, position);
                previousSequence = sequence;
                previousPosition = position;
            }
        }
        while (count > 0) {
            int last = 3 * (count - 1);
            cursor.reset(log, entries[last + 2], logSize, entries[last] - 1);
            if (cursor.next() == FrameCursor.FRAME && cursor.skippedFrom() < 0 && cursor.lastSequence() == entries[last]
                    && cursor.buffer().getLong(cursor.frameOffset() + RecordFrame.TIMESTAMP_OFFSET) == entries[last + 1]) {
                break;
            }
            count = count - 1;
        }
        lastIndexedPosition = count == 0 ? 0 : entries[3 * (count - 1) + 2];
        return read;
    }

    /**
     * Cuts the file after the entries in memory (stale entries, a seal of a segment that is active
     * again); when {@code force} and anything was cut, forces the cut so it cannot come back.
     */
    void truncateToEntries(boolean force) throws IOException {
        long keep = (long) count * ENTRY_BYTES;
        if (channel.size() > keep) {
            channel.truncate(keep);
            if (force) {
                channel.force(true);
            }
        }
    }

    /**
     * Loads a sealed segment's entries if not done yet (the first seek into it): checked against the
     * seal's CRC and the log's bounds; rebuilt from the log (and rewritten, with a new seal) when they
     * do not match.
     *
     * @return bytes read to load it (index, and the log when rebuilt); 0 when it was loaded
     */
    long ensureLoaded(FileChannel log, long logSize) throws IOException {
        if (loaded) {
            return 0;
        }
        loadLock.lock();
        try {
            if (loaded) {
                return 0;
            }
            long read = readSealedEntries(logSize);
            if (read < 0) {
                read = rebuild(log, logSize);
            }
            loaded = true;
            return read;
        } finally {
            loadLock.unlock();
        }
    }

    /** @return bytes read, or -1 when the entries on the disk do not match the seal (nothing kept) */
    private long readSealedEntries(long logSize) throws IOException {
        long n = seal.entryCount();
        if (n > Integer.MAX_VALUE / 3) {
            return -1;
        }
        long[] array = new long[(int) (3 * n)];
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK_ENTRIES * ENTRY_BYTES);
        CRC32C crc = new CRC32C();
        long read = 0;
        long previousSequence = baseSequence - 1;
        long previousPosition = -1;
        int i = 0;
        for (long at = 0; at < n; at += CHUNK_ENTRIES) {
            chunk.clear().limit((int) Math.min(CHUNK_ENTRIES, n - at) * ENTRY_BYTES);
            read += readFully(chunk, at * ENTRY_BYTES);
            chunk.flip();
            crc.update(chunk.duplicate());
            while (chunk.remaining() >= ENTRY_BYTES) {
                long sequence = chunk.getLong();
                long timestamp = chunk.getLong();
                long position = chunk.getLong();
                if (sequence <= previousSequence || position <= previousPosition || position >= logSize
                        || sequence > seal.lastSequence()) {
                    return -1;
                }
                array[3 * i] = sequence;
                array[3 * i + 1] = timestamp;
                array[3 * i + 2] = position;
                i++;
                previousSequence = sequence;
                previousPosition = position;
            }
        }
        if (i != n || (int) crc.getValue() != seal.entriesCrc()) {
            return -1;
        }
        entries = array; // published before the count that needs it
        count = i;
        return read;
    }

    /** Rebuilds a sealed segment's entries from its log and rewrites the file (not forced: the CRC guards it). */
    private long rebuild(FileChannel log, long logSize) throws IOException {
        LOG.warn("{}: index does not match its seal; rebuilt from the log", file);
        FrameCursor cursor = new FrameCursor();
        cursor.reset(log, 0, logSize, baseSequence - 1);
        count = 0;
        while (cursor.next() == FrameCursor.FRAME) {
            long timestamp = cursor.buffer().getLong(cursor.frameOffset() + RecordFrame.TIMESTAMP_OFFSET);
            if (count == 0 || cursor.framePosition() - lastIndexedPosition >= INTERVAL_BYTES) {
                add(cursor.lastSequence(), timestamp, cursor.framePosition());
                lastIndexedPosition = cursor.framePosition();
            }
        }
        try {
            ByteBuffer all = ByteBuffer.allocate(count * ENTRY_BYTES + SegmentSeal.BYTES);
            putEntries(all);
            CRC32C crc = new CRC32C();
            seal = new SegmentSeal(seal.size(), seal.lastSequence(), seal.lastTimestamp(), seal.lastPosition(),
                    seal.headerRecords(), count, seal.forced(), entriesCrc(crc));
            seal.encode(all, crc);
            all.flip();
            channel.truncate(0);
            writeFully(all, 0);
        } catch (IOException e) {
            LOG.debug("{}: rebuilt index not written: {}", file, e.toString());
        }
        return cursor.bytesRead();
    }

    /**
     * Writes the seal after the entries and, when {@code force}, forces the file (the caller forced
     * the log before). A segment that is sealed gets no more entries.
     */
    void writeSeal(long size, long lastSequence, long lastTimestamp, long lastPosition, long headerRecords,
                   boolean force) throws IOException {
        CRC32C crc = new CRC32C();
        write(new SegmentSeal(size, lastSequence, lastTimestamp, lastPosition, headerRecords, count, force,
                entriesCrc(crc)), crc);
        if (force) {
            channel.force(false);
        }
    }

    /**
     * Rewrites the seal written or read before as forced, and forces the file (the caller forced
     * the log before): an unforced seal (the OS policy) made one recovery can trust with the log's size.
     */
    void forceSeal() throws IOException {
        if (seal != null && !seal.forced()) {
            write(seal.asForced(), new CRC32C());
            channel.force(false);
        }
    }

    private void write(SegmentSeal written, CRC32C crc) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(SegmentSeal.BYTES);
        written.encode(buffer, crc);
        buffer.flip();
        long at = written.entryCount() * ENTRY_BYTES;
        writeFully(buffer, at);
        if (channel.size() > at + SegmentSeal.BYTES) {
            channel.truncate(at + SegmentSeal.BYTES);
        }
        seal = written;
    }

    /** @return the CRC32C of the entries in memory, as written in the file */
    private int entriesCrc(CRC32C crc) {
        ByteBuffer all = ByteBuffer.allocate(count * ENTRY_BYTES);
        putEntries(all);
        all.flip();
        crc.reset();
        crc.update(all);
        return (int) crc.getValue();
    }

    private void putEntries(ByteBuffer out) {
        long[] array = entries;
        for (int i = 0, n = count; i < n; i++) {
            out.putLong(array[3 * i]).putLong(array[3 * i + 1]).putLong(array[3 * i + 2]);
        }
    }

    /** Forces the file: every entry written so far survives a power cut. */
    void force() throws IOException {
        channel.force(false);
    }

    private long readFully(ByteBuffer buffer, long position) throws IOException {
        int start = buffer.position();
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position() - start) < 0) {
                break;
            }
        }
        return buffer.position() - start;
    }

    private void writeFully(ByteBuffer buffer, long position) throws IOException {
        int start = buffer.position();
        while (buffer.hasRemaining()) {
            channel.write(buffer, position + buffer.position() - start);
        }
    }

    /** @return entries in memory (0 for a sealed index not loaded yet) */
    int count() {
        return count;
    }

    /** @return whether the entries are in memory */
    boolean loaded() {
        return loaded;
    }

    /** @return the last entry with a sequence {@code <= sequence}, or -1 */
    int entryForSequence(long sequence) {
        return findEntry(sequence, 0);
    }

    /** @return the last entry with a timestamp {@code < millis}, or -1 */
    int entryBeforeTime(long millis) {
        return findEntry(millis - 1, 1);
    }

    /** @return the sequence of entry {@code i} */
    long entrySequence(int i) {
        return entries[3 * i];
    }

    /** @return the file position of entry {@code i} */
    long entryPosition(int i) {
        return entries[3 * i + 2];
    }

    /** Binary search for the last entry whose field {@code field} is {@code <= key}. */
    private int findEntry(long key, int field) {
        int n = count; // read before the array: a newer array holds every counted entry
        long[] array = entries;
        int low = 0;
        int high = n - 1;
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

    void close() throws IOException {
        channel.close();
    }
}
