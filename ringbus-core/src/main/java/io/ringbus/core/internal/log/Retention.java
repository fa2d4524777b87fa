package io.ringbus.core.internal.log;

/**
 * Which segments a log's retention deletes (see {@link SegmentLog#applyRetention()}): whole
 * segments, oldest first, never the active one.
 */
final class Retention {
    private Retention() {
    }

    /**
     * Counts the oldest segments to delete: while the log is over {@link LogConfig#maxBytes()} or
     * {@link LogConfig#maxRecords()} counting the active segment as full (what it may hold before it
     * rolls), or the oldest segment's newest record is older than {@link LogConfig#maxAge()}, or every
     * record in it is at or below {@code consumedThrough} (a work queue's ack floor).
     *
     * @param segments        the log's segments, oldest first, the active one last
     * @param config          the limits
     * @param consumedThrough every record up to here was consumed (0 for none)
     * @param nowMillis       the current time
     * @return how many of the oldest segments to delete, at most {@code segments.length - 1}
     */
    static int segmentsToDrop(Segment[] segments, LogConfig config, long consumedThrough, long nowMillis) {
        long bytes = 0;
        long records = 0;
        for (int i = 0; i < segments.length - 1; i++) {
            bytes += segments[i].size();
            records += segments[i].records();
        }
        Segment active = segments[segments.length - 1];
        bytes += Math.max(active.size(), config.segmentBytes());
        records += config.segmentRecords() > 0 ? Math.max(active.records(), config.segmentRecords())
                : active.records();
        long maxBytes = config.maxBytes();
        long maxRecords = config.maxRecords();
        long oldestAllowed = config.maxAge().isZero() ? Long.MIN_VALUE : nowMillis - config.maxAge().toMillis();
        int drop = 0;
        while (drop < segments.length - 1) {
            Segment oldest = segments[drop];
            boolean over = maxBytes > 0 && bytes > maxBytes || maxRecords > 0 && records > maxRecords
                    || oldest.lastTimestamp() < oldestAllowed
                    || !oldest.isEmpty() && oldest.lastSequence() <= consumedThrough;
            if (!over) {
                break;
            }
            bytes -= oldest.size();
            records -= oldest.records();
            drop++;
        }
        return drop;
    }
}
