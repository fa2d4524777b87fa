package io.ringbus.core.internal.store;

import io.ringbus.core.internal.log.LogCheckpoint;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;
import io.ringbus.core.wire.NatsHeaderBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps a stream's {@link KeyedIds} across restarts and ahead of retention: a snapshot
 * ({@link KeyedIdsFile}) as of some sequence, plus the log's records after it.
 *
 * <ul>
 *   <li>Open: the snapshot is read, the retained records after its sequence replayed (only records
 *       with headers are read), and, when that added any, a new snapshot written through the log's
 *       last sequence, before retention first runs.</li>
 *   <li>Roll: the ids are captured (an array of immutable entries) through the last record before
 *       the new segment; nothing is written on the appending thread.</li>
 *   <li>Before retention unlinks segments (the flusher): the latest capture is written, once the log
 *       is forced through it (so the snapshot never remembers a record a power cut could lose).
 *       Every segment retention drops ends at or before that capture, so no record is dropped before
 *       a snapshot covers it; a snapshot that cannot be written holds the segments back.</li>
 * </ul>
 *
 * <p>A kill at any point leaves an older snapshot and the records after it: the next open replays them.
 * A snapshot that is damaged (changed outside ringbus) is logged and ignored: the ids are rebuilt from
 * the retained records, and keys whose records retention removed fall back to the duplicate window.
 *
 * <p>Thread-safety: {@link #ids()} under the stream's append lock; {@link #rolled} under the log's
 * append lock (inside the stream's); saves under this class's own lock.
 */
final class KeyedIdsCheckpoint implements LogCheckpoint {
    private static final Logger LOG = LoggerFactory.getLogger(KeyedIdsCheckpoint.class);

    /** The ids through a sequence, captured at a roll (or at open). */
    private record Capture(long through, KeyedIds.Entry[] entries) {
    }

    private final String stream;
    private final KeyedIds ids;
    private final KeyedIdsFile file;
    private final ReentrantLock saveLock = new ReentrantLock();
    private volatile Capture pending;
    /** The sequence the file on disk covers; written under {@link #saveLock}. */
    private volatile long savedThrough = -1;
    /** Bytes read from the log at open to replay the records after the snapshot. */
    private long openReadBytes;

    KeyedIdsCheckpoint(String stream, long maxBytes, KeyedIdsFile file) {
        this.stream = stream;
        this.ids = new KeyedIds(maxBytes);
        this.file = file;
    }

    /** @return the ids, used under the stream's append lock */
    KeyedIds ids() {
        return ids;
    }

    /** @return bytes read from the log at open */
    long openReadBytes() {
        return openReadBytes;
    }

    @Override
    public void opened(SegmentLog log) {
        long from = 1;
        try {
            KeyedIdsFile.Saved saved = file.load();
            if (saved != null) {
                saved.entries().forEach(ids::remember);
                from = saved.through() + 1;
                savedThrough = saved.through();
            }
        } catch (IOException e) {
            LOG.warn("stream '{}': per-key outbox ids not restored, rebuilt from the retained records: {}",
                    stream, e.toString());
        }
        long last = log.lastSequence();
        if (from <= last) {
            LogReader reader = log.headerReader(from);
            for (LogRecord record = reader.next(); record != null; record = reader.next()) {
                KeyedIds.Id id = KeyedIds.parse(NatsHeaderBlock.wrap(record.copyHeaders()));
                if (id != null) {
                    ids.remember(id, record.sequence());
                }
            }
            openReadBytes = reader.bytesRead();
        }
        pending = new Capture(last, ids.capture());
        if (last > savedThrough) {
            mayUnlink(last); // saves now: what the last process appended is on the disk
        }
    }

    @Override
    public void rolled(long through) {
        pending = new Capture(through, ids.capture());
    }

    @Override
    public boolean mayUnlink(long durableThrough) {
        saveLock.lock();
        try {
            Capture capture = pending;
            if (capture == null || capture.through() <= savedThrough) {
                return true;
            }
            if (capture.through() > durableThrough) {
                return false; // the flusher calls again once it forced through the capture
            }
            file.save(capture.through(), capture.entries());
            savedThrough = capture.through();
            return true;
        } catch (IOException e) {
            LOG.warn("stream '{}': per-key outbox ids not saved to {} ({}): retention keeps the segments until a"
                    + " save succeeds", stream, file.path(), e.toString());
            return false;
        } finally {
            saveLock.unlock();
        }
    }
}
