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
 * <p>Not thread-safe: one thread at a time. Holds no file of its own; needs no closing.
 */
public final class LogReader {
    private final SegmentLog log;
    private final FrameCursor cursor = new FrameCursor();
    private final LogRecord record = new LogRecord();
    private Segment segment;
    private long nextSequence;
    private long fromMillis;

    LogReader(SegmentLog log, long fromSequence, long fromMillis) {
        this.log = log;
        this.nextSequence = fromSequence;
        this.fromMillis = fromMillis;
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
        int entry = segment.entryForSequence(sequence);
        if (entry < 0) {
            cursor.reset(segment.log, 0, segment.size(), segment.baseSequence - 1);
        } else {
            cursor.reset(segment.log, segment.entryPosition(entry), segment.size(), segment.entrySequence(entry) - 1);
        }
    }

    private void seekTime(long millis) {
        Segment[] segments = log.segments();
        int i = 0;
        while (i < segments.length - 1 && (segments[i].isEmpty() || segments[i].lastTimestamp() < millis)) {
            i++;
        }
        segment = segments[i];
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
                if (record.sequence() < nextSequence || record.timestampMillis() < fromMillis) {
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
        }
    }

    /** @return the sequence the next record returned will have at least */
    public long position() {
        return nextSequence;
    }
}
