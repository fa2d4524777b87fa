package io.ringbus.core.internal.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;

/**
 * Reads a {@link SegmentLog}'s records in sequence order, following the log as it grows.
 *
 * <p>Starts at a sequence or a time (see {@link SegmentLog#reader} and
 * {@link SegmentLog#readerFromTime}). Records that retention deletes before the reader gets to
 * them are skipped: the reader goes on at the first retained record (records it had already read
 * ahead into its buffer may still be returned first). Corrupt records are never
 * returned: each is skipped, logged and counted in {@link LogStats#corruptRecordsSkipped()}, so the
 * sequences returned may have gaps there. Every record is checked against its CRC as it is read.
 *
 * <p>A reader of headers ({@link SegmentLog#headerReader}) returns only records that carry headers
 * and skips, unread, every rolled segment whose seal says it holds none.
 *
 * <p>Seeking into a sealed segment loads its index on first use (see {@link SegmentIndex}); what
 * the reader read, index loads included, is counted ({@link #bytesRead()}).
 *
 * <p>Not thread-safe: one thread at a time. Holds no file of its own; needs no closing.
 */
public final class LogReader {
    private final SegmentLog log;
    private final FrameCursor cursor = new FrameCursor();
    private final LogRecord record = new LogRecord();
    private final boolean headersOnly;
    private Segment segment;
    private long nextSequence;
    private long fromMillis;
    private long indexBytesRead;

    LogReader(SegmentLog log, long fromSequence, long fromMillis, boolean headersOnly) {
        this.log = log;
        this.nextSequence = fromSequence;
        this.fromMillis = fromMillis;
        this.headersOnly = headersOnly;
        if (fromMillis == Long.MIN_VALUE) {
            seekSequence(fromSequence);
        } else {
            seekTime(fromMillis);
        }
    }

    private void seekSequence(long sequence) {
        Segment[] segments = log.segments();
        int i = segments.length - 1;
        while (i > 0 && segments[i].baseSequence > sequence) {
            i--;
        }
        segment = segments[i];
        if (skipWithoutHeaders() || !loadIndex()) {
            return;
        }
        int entry = segment.entryForSequence(sequence);
        if (entry < 0) {
            cursor.reset(segment.log, 0, segment.size(), segment.baseSequence - 1);
        } else {
            cursor.reset(segment.log, segment.entryPosition(entry), segment.size(), segment.entrySequence(entry) - 1);
        }
    }

    /**
     * A reader of headers at a segment that holds none (and is not the last): moves on to the first
     * one that may, at its start.
     *
     * @return whether it moved
     */
    private boolean skipWithoutHeaders() {
        if (!headersOnly || segment.headerRecords() != 0) {
            return false;
        }
        Segment after = log.segmentAfter(segment.baseSequence);
        while (after != null && after.headerRecords() == 0) {
            Segment next = log.segmentAfter(after.baseSequence);
            if (next == null) {
                break;
            }
            after = next;
        }
        if (after == null) {
            return false; // the last segment: appended to, read as it grows
        }
        segment = after;
        cursor.reset(after.log, 0, after.size(), after.baseSequence - 1);
        return true;
    }

    /**
     * Loads the segment's index if not done yet.
     *
     * @return false when retention deleted the segment meanwhile (the cursor then starts at 0 and
     *         {@link #next()} moves on)
     */
    private boolean loadIndex() {
        try {
            indexBytesRead += segment.loadIndex();
            return true;
        } catch (ClosedChannelException e) {
            cursor.reset(segment.log, 0, segment.size(), segment.baseSequence - 1);
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("read of " + segment.indexFile + " failed: " + e, e);
        }
    }

    private void seekTime(long millis) {
        Segment[] segments = log.segments();
        int i = 0;
        while (i < segments.length - 1 && (segments[i].isEmpty() || segments[i].lastTimestamp() < millis)) {
            i++;
        }
        segment = segments[i];
        if (skipWithoutHeaders() || !loadIndex()) {
            return;
        }
        int entry = segment.entryBeforeTime(millis);
        if (entry < 0) {
            cursor.reset(segment.log, 0, segment.size(), segment.baseSequence - 1);
        } else {
            cursor.reset(segment.log, segment.entryPosition(entry), segment.size(), segment.entrySequence(entry) - 1);
        }
    }

    /**
     * Moves to the next record.
     *
     * @return the record, a view valid until the next call; or null when the reader is at the end
     *         of the log (call again later to follow new appends)
     * @throws UncheckedIOException if reading failed
     * @throws IllegalStateException if the log was closed
     */
    public LogRecord next() {
        while (true) {
            cursor.limit(segment.size());
            int result;
            try {
                result = cursor.next();
            } catch (ClosedChannelException e) {
                if (log.isClosed()) {
                    throw new IllegalStateException("log closed: " + log.directory(), e);
                }
                // Retention deleted the segment under us: go on at the first retained record.
                seekSequence(Math.max(nextSequence, log.firstSequence()));
                continue;
            } catch (IOException e) {
                throw new UncheckedIOException("read of " + segment.logFile + " failed: " + e, e);
            }
            if (result != FrameCursor.END && cursor.skippedFrom() >= 0) {
                log.reportCorrupt(segment, cursor.skippedFrom());
            }
            if (result == FrameCursor.FRAME) {
                record.wrap(cursor.buffer(), cursor.frameOffset());
                if (record.sequence() < nextSequence || record.timestampMillis() < fromMillis
                        || headersOnly && record.headersLength() == 0) {
                    continue;
                }
                nextSequence = record.sequence() + 1;
                fromMillis = Long.MIN_VALUE;
                return record;
            }
            if (result == FrameCursor.TORN) {
                continue; // the cursor is at the limit now: the corrupt bytes are behind it
            }
            Segment after = log.segmentAfter(segment.baseSequence);
            if (after == null) {
                return null;
            }
            if (cursor.position() < segment.size()) {
                continue; // appended before the roll that made `after`: read it first
            }
            segment = after;
            cursor.reset(after.log, 0, after.size(), after.baseSequence - 1);
            skipWithoutHeaders();
        }
    }

    /** @return bytes this reader read from the log's files: records, and the indexes its seeks loaded */
    public long bytesRead() {
        return cursor.bytesRead() + indexBytesRead;
    }

    /** @return the sequence the next record returned will have at least */
    public long position() {
        return nextSequence;
    }
}
