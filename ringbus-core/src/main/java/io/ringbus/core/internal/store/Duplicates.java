package io.ringbus.core.internal.store;

import io.ringbus.core.Headers;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;

import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The message ids a stream stored within its duplicate window, oldest first, with their sequences
 * (JetStream's {@code Nats-Msg-Id} de-duplication). At most {@link #MAX_IDS} are kept: past that the
 * oldest are forgotten early (a bound in memory, counted nowhere else; a retry that old is rare).
 * Rebuilt at open from the records of the last window, so a retry after a restart is still caught.
 *
 * <p>Not thread-safe: used under the stream's append lock.
 */
final class Duplicates {
    /** The most ids remembered per stream. */
    static final int MAX_IDS = 200_000;
    /** The most records read at open to rebuild the ids. */
    static final long MAX_SCAN = 1_000_000;

    private final long windowMillis;
    private final LinkedHashMap<String, long[]> ids = new LinkedHashMap<>();

    Duplicates(long windowMillis) {
        this.windowMillis = windowMillis;
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
        ids.put(id, new long[] {sequence, nowMillis});
        if (ids.size() > MAX_IDS) {
            Iterator<?> oldest = ids.values().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    private void expire(long nowMillis) {
        Iterator<Map.Entry<String, long[]>> it = ids.entrySet().iterator();
        while (it.hasNext() && it.next().getValue()[1] < nowMillis - windowMillis) {
            it.remove();
        }
    }

    /**
     * Reads the ids of the records stored within the last window, at most the last {@link #MAX_SCAN}
     * records: the reader starts at whichever is later, so a restart reads a bounded part of the log
     * however much of it the window holds.
     */
    void rebuild(SegmentLog log, long window) {
        rebuild(log, window, MAX_SCAN);
    }

    /** As {@link #rebuild(SegmentLog, long)}, reading at most the last {@code maxScan} records. */
    void rebuild(SegmentLog log, long window, long maxScan) {
        if (window == 0 || log.lastSequence() == 0) {
            return;
        }
        long fromMillis = System.currentTimeMillis() - window;
        long floor = log.lastSequence() - maxScan;
        LogReader reader = log.readerFromTime(Instant.ofEpochMilli(fromMillis));
        LogRecord record = reader.next();
        if (record != null && record.sequence() <= floor) {
            reader = log.reader(floor + 1);
            record = reader.next();
        }
        for (; record != null; record = reader.next()) {
            if (record.headersLength() > 0 && record.timestampMillis() >= fromMillis) {
                String id = Headers.fromNatsBlock(record.copyHeaders()).first(LocalStream.MSG_ID);
                if (id != null) {
                    remember(id, record.sequence(), record.timestampMillis());
                }
            }
        }
    }
}
