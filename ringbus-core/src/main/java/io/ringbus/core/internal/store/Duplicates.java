package io.ringbus.core.internal.store;

import io.ringbus.core.StreamConfig;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;
import io.ringbus.core.wire.HeaderNames;
import io.ringbus.core.wire.NatsHeaderBlock;

import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The message ids a stream stored within its duplicate window, oldest first, with their sequences
 * (JetStream's {@code Nats-Msg-Id} de-duplication). Bounded twice: at most {@link #MAX_IDS} ids and
 * at most {@link StreamConfig#duplicateWindowBytes()} bytes of them (each id costs twice its length
 * plus {@link StreamConfig#DUPLICATE_ENTRY_OVERHEAD}); past either the oldest are forgotten before
 * their window ends, and counted ({@link #forgotten()}): a client sending long ids fast shortens the
 * window of its stream, never the heap of the server. Rebuilt at open from the records of the last
 * window, so a retry after a restart is still caught.
 *
 * <p>Not thread-safe: used under the stream's append lock.
 */
final class Duplicates {
    /** The most ids remembered per stream. */
    static final int MAX_IDS = 200_000;
    /** The most records read at open to rebuild the ids. */
    static final long MAX_SCAN = 1_000_000;

    private final long windowMillis;
    private final long maxBytes;
    private final LinkedHashMap<String, long[]> ids = new LinkedHashMap<>();
    private long bytes;
    private long forgotten;

    Duplicates(long windowMillis) {
        this(windowMillis, StreamConfig.DEFAULT_DUPLICATE_WINDOW_BYTES);
    }

    /**
     * @param windowMillis how long an id is remembered, 0 for not at all
     * @param maxBytes     the most bytes the ids may take
     */
    Duplicates(long windowMillis, long maxBytes) {
        this.windowMillis = windowMillis;
        this.maxBytes = maxBytes;
    }

    /** @return what remembering {@code id} costs, in bytes */
    static long cost(String id) {
        return 2L * id.length() + StreamConfig.DUPLICATE_ENTRY_OVERHEAD;
    }

    /** @return the sequence stored under {@code id} within the window, or 0 */
    long sequenceOf(String id, long nowMillis) {
        expire(nowMillis);
        long[] entry = ids.get(id);
        return entry == null ? 0 : entry[0];
    }

    void remember(String id, long sequence, long nowMillis) {
        if (windowMillis == 0) {
            return;
        }
        long cost = cost(id);
        if (ids.put(id, new long[] {sequence, nowMillis}) == null) {
            bytes += cost;
        }
        Iterator<String> oldest = ids.keySet().iterator();
        while ((ids.size() > MAX_IDS || bytes > maxBytes) && oldest.hasNext()) {
            bytes -= cost(oldest.next());
            oldest.remove();
            forgotten++;
        }
    }

    private void expire(long nowMillis) {
        Iterator<Map.Entry<String, long[]>> it = ids.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, long[]> oldest = it.next();
            if (oldest.getValue()[1] >= nowMillis - windowMillis) {
                break;
            }
            bytes -= cost(oldest.getKey());
            it.remove();
        }
    }

    /** @return the ids remembered now */
    int size() {
        return ids.size();
    }

    /** @return the bytes the remembered ids take, as {@link #cost} counts them */
    long bytes() {
        return bytes;
    }

    /** @return ids forgotten before their window ended because a bound was reached */
    long forgotten() {
        return forgotten;
    }

    /**
     * Reads the ids of the records stored within the last window, at most the last {@link #MAX_SCAN}
     * records: the reader starts at whichever is later, so a restart reads a bounded part of the log
     * however much of it the window holds. Only records with headers can carry an id: rolled segments
     * whose seal says they hold none are skipped unread.
     *
     * @return bytes read from the log's files
     */
    long rebuild(SegmentLog log, long window) {
        return rebuild(log, window, MAX_SCAN);
    }

    /** As {@link #rebuild(SegmentLog, long)}, reading at most the last {@code maxScan} records. */
    long rebuild(SegmentLog log, long window, long maxScan) {
        if (window == 0 || log.lastSequence() == 0) {
            return 0;
        }
        long fromMillis = System.currentTimeMillis() - window;
        long floor = log.lastSequence() - maxScan;
        LogReader reader = log.headerReaderFromTime(Instant.ofEpochMilli(fromMillis));
        long read = 0;
        LogRecord record = reader.next();
        if (record != null && record.sequence() <= floor) {
            read += reader.bytesRead();
            reader = log.headerReader(floor + 1);
            record = reader.next();
        }
        for (; record != null; record = reader.next()) {
            if (record.timestampMillis() >= fromMillis) {
                String id = NatsHeaderBlock.wrap(record.copyHeaders()).first(HeaderNames.MSG_ID);
                if (id != null) {
                    remember(id, record.sequence(), record.timestampMillis());
                }
            }
        }
        return read + reader.bytesRead();
    }
}
