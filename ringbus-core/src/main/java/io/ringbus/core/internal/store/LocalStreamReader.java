package io.ringbus.core.internal.store;

import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StreamReader;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;

import java.io.UncheckedIOException;

/**
 * The local store's {@link StreamReader}: one {@link LogReader} kept between calls and moved forward
 * record by record through its buffer, so that reading a stream in order costs one file read per
 * buffer rather than a seek (an index lookup and a read of its own) per message. It seeks again only
 * to go back, or more than {@link #MAX_SKIP} sequences ahead.
 *
 * <p>Each answer is checked as {@link LocalStream#read(long)} checks it: a sequence below the log's
 * first (retention), superseded (per-subject limit) or removed (purge, delete) is not held, even if
 * the reader read it into its buffer before.
 *
 * <p>Not thread-safe: one thread at a time.
 */
final class LocalStreamReader implements StreamReader {
    /** Sequences read past, at most, rather than seeking (a seek reads a buffer of its own). */
    static final long MAX_SKIP = 1_024;

    private final LocalStream stream;
    private final SegmentLog log;
    private LogReader reader;
    /** The record the reader is at (a view valid until it moves), or null at the end or before the first read. */
    private LogRecord current;
    /** The lowest sequence the reader can still answer without a seek. */
    private long from;

    LocalStreamReader(LocalStream stream) {
        this.stream = stream;
        this.log = stream.log();
    }

    @Override
    public StoredMessage read(long sequence) {
        LogRecord record = at(sequence);
        return record == null ? null : stream.toMessage(record, 1);
    }

    @Override
    public String subject(long sequence) {
        LogRecord record = at(sequence);
        return record == null ? null : record.subject();
    }

    /** @return the record at {@code sequence}, or null when the stream does not hold it */
    private LogRecord at(long sequence) {
        if (sequence < 1 || sequence > log.lastSequence() || sequence < log.firstSequence()
                || stream.isSuperseded(sequence)) {
            return null;
        }
        try {
            if (reader == null || sequence < from || sequence - from > MAX_SKIP) {
                reader = stream.reader(sequence);
                current = null;
                from = sequence;
            }
            while (current == null || current.sequence() < sequence) {
                long before = reader.position();
                LogRecord next = reader.next();
                if (next == null) {
                    current = null;
                    from = reader.position();
                    return null;
                }
                current = next;
                from = before;
            }
            return current.sequence() == sequence ? current : null;
        } catch (UncheckedIOException e) {
            reader = null;
            current = null;
            throw new StorageException("reading sequence " + sequence + " of stream '" + stream.config().name()
                    + "' failed: " + e.getMessage(), e);
        }
    }
}
