package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * An append-only log of records in segment files under one directory, crash-safe and retained by
 * age, bytes and count. Format: {@code RecordFrame} (records), {@code Segment} (files and index),
 * {@code docs/storage.md}.
 *
 * <p><b>Threading.</b> {@link #append} may be called from any thread, virtual ones included; appends
 * are serialized by a lock and get consecutive sequences. {@link #awaitDurable} blocks (virtual-thread
 * friendly) until a record is durable under the {@link FsyncPolicy}. Readers run concurrently with
 * appends and retention; each {@link LogReader} is used by one thread at a time.
 *
 * <p><b>Crash safety.</b> {@link #open} takes each rolled segment from its seal (see {@link Segment}),
 * reading only its last record, and recovers the others (the active one; one rolled just before a
 * crash) from their last index entry that matches the log: a torn tail is truncated (counted,
 * logged), a corrupt record between valid ones is skipped (counted, logged, never delivered), and
 * sequences continue after the last valid record. What open reads is bounded by the tail, not the
 * log's size ({@link LogStats#openReadBytes()}).
 * A failed write or {@code fsync} throws {@link UncheckedIOException} naming the file; records
 * already stored stay readable.
 *
 * <p><b>Allocation.</b> An append allocates nothing (encoded into a reused direct buffer) except
 * when a segment rolls or the index grows.
 */
public final class SegmentLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentLog.class);

    private final Path dir;
    private final LogConfig config;
    private final DurableFiles files;
    private final ReentrantLock appendLock = new ReentrantLock();
    /** Written only under {@link #appendLock}. */
    private final ByteBuffer frame;
    private final CRC32C crc = new CRC32C();
    private final GroupCommitFlusher flusher;
    private final AtomicLong fsyncs = new AtomicLong();
    private final AtomicLong indexFsyncs = new AtomicLong();
    private final long openReadBytes;
    private final int openScannedSegments;
    /** A rolled segment waits for its seal (written by the flusher after its next force, see {@link #sealRolled}). */
    private final AtomicBoolean unsealed = new AtomicBoolean();
    private final AtomicLong corruptRecords = new AtomicLong();
    private final long truncatedTailBytes;
    /** Oldest first; the last is the active one. Replaced (copy on write) under {@link #appendLock}. */
    private volatile Segment[] segments;
    private volatile long lastSequence;
    private long lastTimestamp;
    private volatile boolean closed;
    /**
     * A roll created or retention deleted a name in {@link #dir} that is not forced yet: the
     * flusher forces the directory before it reports anything past it durable. Set under
     * {@link #appendLock} after the name changed and before the roll's first record is appended;
     * taken by the flusher after it read the sequence it will report (see {@link #forceAppended}).
     */
    private final AtomicBoolean directoryUnsynced = new AtomicBoolean();
    /** Segments retention dropped, waiting for the flusher to unlink them. */
    private final RetiredSegments retired;
    /** Every record up to here was consumed (a work queue's ack floor): its segments may go. Under appendLock. */
    private long consumedThrough;

    private SegmentLog(Path dir, LogConfig config, DurableFiles files, LogRecovery recovery, LogCheckpoint checkpoint) {
        this.dir = dir;
        this.config = config;
        this.files = files;
        this.retired = new RetiredSegments(checkpoint);
        Segment[] segments = recovery.segments();
        this.segments = segments;
        this.truncatedTailBytes = recovery.truncatedBytes();
        this.corruptRecords.set(recovery.corruptRecords());
        this.openReadBytes = recovery.readBytes();
        this.openScannedSegments = recovery.scannedSegments();
        this.frame = ByteBuffer.allocateDirect(RecordFrame.OVERHEAD + config.maxRecordBytes());
        Segment active = segments[segments.length - 1];
        long last = active.baseSequence - 1;
        for (int i = 0; i < segments.length; i++) {
            last = Math.max(last, segments[i].lastSequence());
            lastTimestamp = Math.max(lastTimestamp, segments[i].lastTimestamp());
            if (i < segments.length - 1 && !segments[i].sealed(config.policy() != FsyncPolicy.OS)) {
                unsealed.set(true); // rolled just before a crash, or sealed under OS: sealed by the flusher, or below
            }
        }
        this.lastSequence = last;
        this.flusher = config.policy() == FsyncPolicy.OS ? null
                : new GroupCommitFlusher(this, config.policy(), config.intervalMillis(), last,
                        "ringbus-log-flusher-" + dir.getFileName());
    }

    /**
     * Opens the log in {@code dir} (created if missing), recovering what a crash left.
     *
     * @param dir    the log's own directory
     * @param config how to store, force and retain
     * @return the open log, with its flusher thread started
     * @throws UncheckedIOException if the directory or a segment cannot be read or repaired
     */
    public static SegmentLog open(Path dir, LogConfig config) {
        return open(dir, config, new DurableFiles(config.policy() != FsyncPolicy.OS));
    }

    /** As {@link #open(Path, LogConfig, DurableFiles, LogCheckpoint)} without a checkpoint. */
    public static SegmentLog open(Path dir, LogConfig config, DurableFiles files) {
        return open(dir, config, files, null);
    }

    /**
     * As {@link #open(Path, LogConfig)}, creating, renaming and deleting files through {@code files}
     * (the store's, which counts them), with state that retention must not outrun: {@code checkpoint}
     * is opened after recovery, before retention first runs (see {@link LogCheckpoint}).
     *
     * @param dir        the log's own directory
     * @param config     how to store, force and retain
     * @param files      the durability discipline for names
     * @param checkpoint the state kept ahead of retention, or null
     * @return the open log, with its flusher thread started
     * @throws UncheckedIOException if the directory or a segment cannot be read or repaired
     */
    public static SegmentLog open(Path dir, LogConfig config, DurableFiles files, LogCheckpoint checkpoint) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(files, "files");
        LogRecovery recovery = LogRecovery.recover(dir, files);
        SegmentLog log = new SegmentLog(dir, config, files, recovery, checkpoint);
        if (checkpoint != null) {
            checkpoint.opened(log);
        }
        log.applyRetention();
        if (log.flusher != null) {
            log.flusher.start();
        } else {
            log.sealRolled(false);
        }
        return log;
    }

    /**
     * Appends a record and returns its sequence; it is in the page cache, readable by readers,
     * and durable once {@link #awaitDurable} returns for it.
     *
     * @param subject its subject, at most 65,535 UTF-8 bytes
     * @param headers its headers, or null for none
     * @param payload its payload
     * @return its sequence: 1 for the first record ever, then consecutive
     * @throws IllegalArgumentException if the record exceeds {@link LogConfig#maxRecordBytes()}
     * @throws UncheckedIOException if writing failed (a full disk): nothing was appended, the log
     *         is unchanged, and the next append tries again
     * @throws IllegalStateException if the log is closed
     */
    public long append(String subject, byte[] headers, byte[] payload) {
        int subjectBytes = RecordFrame.utf8Length(subject);
        int headerBytes = headers == null ? 0 : headers.length;
        if (subjectBytes > RecordFrame.MAX_SUBJECT_BYTES
                || (long) subjectBytes + headerBytes + payload.length > config.maxRecordBytes()) {
            throw config.tooLarge(subjectBytes, headerBytes, payload.length);
        }
        appendLock.lock();
        Segment segment = null;
        try {
            if (closed) {
                throw new IllegalStateException("log closed: " + dir);
            }
            long sequence = lastSequence + 1;
            long timestamp = Math.max(System.currentTimeMillis(), lastTimestamp);
            RecordFrame.encode(frame, sequence, timestamp, subject, subjectBytes, headers, payload, crc);
            segment = segments[segments.length - 1];
            if (!segment.isEmpty() && (segment.size() + frame.remaining() > config.segmentBytes()
                    || config.segmentRecords() > 0 && segment.records() >= config.segmentRecords())) {
                segment = null; // a failed roll names the directory, not the full segment
                segment = roll(sequence);
            }
            segment.append(frame, sequence, timestamp, headerBytes > 0);
            lastTimestamp = timestamp;
            lastSequence = sequence;
            return sequence;
        } catch (IOException e) {
            throw new UncheckedIOException("append to " + (segment == null ? dir : segment.logFile)
                    + " failed: " + e, e);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Starts a segment at {@code base}. With a flusher (ALWAYS, INTERVAL) nothing here waits for the
     * disk: the appending thread may be a server's event loop, shared by many clients. The old
     * segment is forced, the new name and retention's deletions made durable (the directory
     * forced), by the flusher before it reports any record past them durable (see
     * {@link #forceAppended}). Under OS nothing is forced at all.
     */
    private Segment roll(long base) throws IOException {
        Segment[] current = segments;
        Segment created;
        if (flusher != null) {
            created = Segment.createUnsynced(dir, base, files);
            directoryUnsynced.set(true); // after the name exists, before its first record is appended
        } else {
            created = Segment.create(dir, base, files);
        }
        Segment[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = created;
        segments = next;
        if (flusher != null) {
            unsealed.set(true); // after the segments that show it rolled: the flusher seals it after its force
        } else {
            sealQuietly(current[current.length - 1], false); // OS: written now, forced by nobody
        }
        retired.rolled(base - 1);
        retain();
        return created;
    }

    /**
     * Deletes whole segments, oldest first, while the log is over {@link LogConfig#maxBytes()} or
     * {@link LogConfig#maxRecords()} counting the active segment as full (what it may hold before it
     * rolls, so the log stays within the limits until the next roll), or the oldest segment's newest
     * record is older than {@link LogConfig#maxAge()}; never the active segment. Runs on open and at
     * every roll; call it to apply age retention to a log that is not being appended to.
     */
    public void applyRetention() {
        appendLock.lock();
        try {
            retain();
        } finally {
            appendLock.unlock();
        }
    }

    private void retain() {
        Segment[] current = segments;
        int drop = Retention.segmentsToDrop(current, config, consumedThrough, System.currentTimeMillis());
        if (drop == 0) {
            return;
        }
        segments = Arrays.copyOfRange(current, drop, current.length);
        boolean deferred = flusher != null && !closed; // else deleted here, once the checkpoint saved
        boolean may = deferred || retired.mayDelete(flusher == null ? lastSequence : flusher.durableSequence());
        for (int i = 0; i < drop; i++) {
            LOG.debug("{}: deleted by retention", current[i].logFile);
            try {
                if (deferred) {
                    retired.add(current[i]); // the flusher unlinks it and forces the directory
                    flusher.request();
                } else if (may) {
                    current[i].delete();
                } else {
                    closeQuietly(current[i]);
                }
            } catch (IOException e) {
                LOG.warn("{}: retention could not delete it: {}", current[i].logFile, e.toString());
            }
        }
    }

    /**
     * Deletes the segments whose every record is at or below {@code sequence}: a work queue's records
     * once every consumer acknowledged them (the active one stays), or a purge's ({@code rollActive}:
     * when {@code sequence} is the last record the active segment rolls first, so that every purged
     * byte leaves the disk). Remembered, so later rolls apply it too.
     *
     * @param sequence   every record up to here may go
     * @param rollActive whether the active segment may roll to go too (a purge)
     * @throws UncheckedIOException when the new segment cannot be created
     */
    public void compactThrough(long sequence, boolean rollActive) {
        appendLock.lock();
        try {
            if (rollActive && sequence >= lastSequence && segments[segments.length - 1].records() > 0) {
                roll(lastSequence + 1);
            }
            if (sequence > consumedThrough) {
                consumedThrough = sequence;
                retain();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a segment after a purge in " + dir, e);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Blocks until record {@code sequence} is durable under the policy: {@link FsyncPolicy#OS}
     * returns at once; {@link FsyncPolicy#ALWAYS} asks the flusher for an {@code fsync}, shared with
     * every other waiter (group commit); {@link FsyncPolicy#INTERVAL} waits for the flusher's next
     * periodic {@code fsync}. Interrupts are remembered and do not end the wait.
     *
     * @param sequence a sequence {@link #append} returned
     * @throws IllegalArgumentException if {@code sequence} was never appended
     * @throws UncheckedIOException if an {@code fsync} failed
     * @throws IllegalStateException if the log closed first
     */
    public void awaitDurable(long sequence) {
        if (sequence > lastSequence) {
            throw new IllegalArgumentException("sequence not appended: sequence=" + sequence + ", lastSequence="
                    + lastSequence);
        }
        if (flusher != null) {
            flusher.awaitDurable(sequence);
        }
    }

    /**
     * Sets the listener told each time the durable sequence advances (on the flusher thread) or an
     * {@code fsync} fails; under {@link FsyncPolicy#OS} it is never called (a record is as durable
     * as it gets once {@link #append} returns). Call once, before the first append.
     *
     * @param listener the listener
     */
    public void onDurable(DurableListener listener) {
        if (flusher != null) {
            flusher.listener(listener);
        }
    }

    /**
     * Asks for record {@code sequence} to become durable without waiting: under
     * {@link FsyncPolicy#ALWAYS} the flusher forces at once (shared with other requests); under
     * INTERVAL the next periodic force covers it; under OS it already is.
     *
     * @param sequence a sequence {@link #append} returned
     */
    public void requestDurable(long sequence) {
        if (flusher != null && config.policy() == FsyncPolicy.ALWAYS && sequence > flusher.durableSequence()) {
            flusher.request();
        }
    }

    /** @return the newest sequence durable under the policy (the last appended under OS) */
    public long durableSequence() {
        return flusher == null ? lastSequence : flusher.durableSequence();
    }

    /**
     * Forces the active segment if anything past {@code durable} was appended (called by the
     * flusher). Reads the sequence before the segment: a roll forced every segment before the active
     * one, so the active one holds whatever the sequence read is not yet forced in.
     *
     * @return the sequence now durable
     */
    long forceAppended(long durable) throws IOException {
        retired.unlink(durable, directoryUnsynced);
        long target = lastSequence;
        // Taken after the sequence is read: a roll marks its new name before appending into it, so
        // a record in target's range has its name's mark seen here, or forced by an earlier force.
        boolean unsyncedNames = directoryUnsynced.getAndSet(false);
        if (target <= durable && !unsyncedNames) {
            return durable;
        }
        Segment[] current = segments;
        Segment active = current[current.length - 1];
        for (Segment segment : current) {
            if (!segment.unforced()) {
                continue; // a roll leaves the old segment to this thread: every unforced one is forced
            }
            try {
                // The index before the log: the entries forced point at records the log force below covers.
                if (segment == active && segment.checkpointIndex(config.indexCheckpointBytes())) {
                    indexFsyncs.incrementAndGet();
                }
                segment.force();
                fsyncs.incrementAndGet();
            } catch (ClosedChannelException e) {
                if (!closed && Arrays.asList(segments).contains(segment)) {
                    throw e; // otherwise retention deleted it meanwhile
                }
            }
        }
        if (unsyncedNames) {
            try {
                files.syncDirectory(dir);
            } catch (IOException e) {
                directoryUnsynced.set(true); // tried again by the next force
                throw e;
            }
        }
        if (retired.checkpointed()) {
            retired.unlink(target, directoryUnsynced); // those the checkpoint held back until its records were forced
        }
        return target;
    }

    /**
     * Seals every rolled segment that is not yet (the flusher, after each force; open and close):
     * forces its log if appended to since its last force, writes its seal and, when {@code force},
     * forces its index. A seal that cannot be written is logged: the segment is then scanned at the
     * next open, nothing is lost.
     */
    void sealRolled(boolean force) {
        if (!unsealed.getAndSet(false)) {
            return;
        }
        Segment[] current = segments;
        for (int i = 0; i < current.length - 1; i++) {
            if (!current[i].sealed(force) && sealQuietly(current[i], force) && force) {
                indexFsyncs.incrementAndGet();
            }
        }
    }

    private boolean sealQuietly(Segment segment, boolean force) {
        try {
            segment.seal(force);
            return true;
        } catch (ClosedChannelException e) {
            return false; // retention deleted it meanwhile
        } catch (IOException e) {
            LOG.warn("{}: seal not written ({}): the next open scans the segment", segment.indexFile, e.toString());
            return false;
        }
    }

    /**
     * Opens a reader at {@code fromSequence}; a sequence that retention deleted (or below 1) starts
     * at the first retained record, one beyond the last starts at the next append.
     *
     * @param fromSequence the first sequence wanted
     * @return a reader for one thread
     */
    public LogReader reader(long fromSequence) {
        return new LogReader(this, fromSequence, Long.MIN_VALUE, false);
    }

    /**
     * As {@link #reader(long)}, returning only records that carry headers, and skipping unread the
     * rolled segments whose seal says they hold none (rebuilding a stream's message ids at open).
     *
     * @param fromSequence the first sequence wanted
     * @return a reader for one thread
     */
    public LogReader headerReader(long fromSequence) {
        return new LogReader(this, fromSequence, Long.MIN_VALUE, true);
    }

    /**
     * As {@link #readerFromTime(Instant)}, returning only records that carry headers (see
     * {@link #headerReader(long)}).
     *
     * @param from the earliest append time wanted
     * @return a reader for one thread
     */
    public LogReader headerReaderFromTime(Instant from) {
        return new LogReader(this, 0, from.toEpochMilli(), true);
    }

    /**
     * Opens a reader at the first record appended at or after {@code from}; records retention
     * deleted are skipped.
     *
     * @param from the earliest append time wanted
     * @return a reader for one thread
     */
    public LogReader readerFromTime(Instant from) {
        return new LogReader(this, 0, from.toEpochMilli(), false);
    }

    Segment[] segments() {
        return segments;
    }

    /** @return the segment after the one based at {@code base}, or null if that is the active one */
    Segment segmentAfter(long base) {
        for (Segment segment : segments) {
            if (segment.baseSequence > base) {
                return segment;
            }
        }
        return null;
    }

    /** Counts a corrupt record a reader skipped, once per position. */
    void reportCorrupt(Segment segment, long position) {
        if (segment.reportCorrupt(position)) {
            corruptRecords.incrementAndGet();
        }
    }

    /** @return the oldest retained sequence, or {@code lastSequence() + 1} if none is */
    public long firstSequence() {
        for (Segment segment : segments) {
            if (!segment.isEmpty()) {
                return segment.baseSequence;
            }
        }
        return lastSequence + 1;
    }

    /** @return the newest appended sequence, 0 if none ever was */
    public long lastSequence() {
        return lastSequence;
    }

    /** @return a snapshot of the counters */
    public LogStats stats() {
        Segment[] current = segments;
        long bytes = 0;
        long records = 0;
        for (Segment segment : current) {
            bytes += segment.size();
            records += segment.records();
        }
        long last = lastSequence;
        long durable = flusher == null ? last : flusher.durableSequence();
        return new LogStats(firstSequence(), last, durable, records, bytes, current.length, fsyncs.get(),
                truncatedTailBytes, corruptRecords.get(), indexFsyncs.get(), openReadBytes, openScannedSegments);
    }

    boolean isClosed() {
        return closed;
    }

    /** @return the log's directory */
    public Path directory() {
        return dir;
    }

    /**
     * Stops the flusher, forces every segment appended to since its last {@code fsync}, seals the
     * rolled segments not sealed yet, forces the active segment's index (so the next open scans
     * nothing) and closes every file. Waiters for records appended before are released as durable.
     * Idempotent.
     */
    @Override
    public void close() {
        appendLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            appendLock.unlock();
        }
        if (flusher != null) {
            flusher.stop();
        }
        Segment[] current = segments;
        Path forcing = dir;
        try {
            if (flusher == null || flusher.failure() == null) {
                for (Segment segment : current) {
                    if (segment.unforced()) { // under OS, rolled segments too
                        forcing = segment.logFile;
                        segment.force();
                        fsyncs.incrementAndGet();
                    }
                }
                unsealed.set(true);
                sealRolled(true);
                Segment active = current[current.length - 1];
                forcing = active.indexFile;
                active.forceIndex(); // the next open scans only what was appended after this
                indexFsyncs.incrementAndGet();
                retired.unlink(lastSequence, directoryUnsynced);
                if (directoryUnsynced.getAndSet(false)) {
                    forcing = dir;
                    files.syncDirectory(dir); // names a roll or retention changed since the last force
                }
                if (flusher != null) {
                    flusher.finish(lastSequence);
                }
            }
        } catch (IOException e) {
            LOG.error("{}: fsync at close failed: {}", forcing, e.toString());
        } finally {
            for (Segment segment : current) {
                closeQuietly(segment);
            }
        }
    }

    static void closeQuietly(Segment segment) {
        try {
            segment.close();
        } catch (IOException e) {
            LOG.warn("{}: close failed: {}", segment.logFile, e.toString());
        }
    }

    @Override
    public String toString() {
        return "SegmentLog[" + dir + ", " + config.policy() + ", lastSequence=" + lastSequence + "]";
    }
}
