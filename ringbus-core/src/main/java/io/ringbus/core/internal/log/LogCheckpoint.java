package io.ringbus.core.internal.log;

/**
 * State derived from a log's records that must outlive retention: told when the log rolls and asked
 * before retention unlinks a segment, so that it can save itself first (a stream's per-key outbox
 * ids, see {@code KeyedIds}). Without one the log behaves as before.
 *
 * <p>The contract that makes the saved state whole: every segment retention drops was rolled, so
 * its records are at or below the {@code through} of the latest {@link #rolled} (or of the log as
 * {@link #opened}); {@link #mayUnlink} is called before any such segment's file goes, on the thread
 * that unlinks it.
 */
public interface LogCheckpoint {
    /**
     * Called once when the log is open and recovered, before retention first runs: the state can be
     * rebuilt from the records still there and saved.
     *
     * @param log the log, readable
     */
    void opened(SegmentLog log);

    /**
     * Called at a roll, under the log's append lock (the appending thread): every record up to
     * {@code through} is appended and none after it. Must not block; capture, do not write.
     *
     * @param through the last sequence before the new segment
     */
    void rolled(long through);

    /**
     * Called before retention unlinks segments (the flusher thread; the appending thread under the
     * {@code OS} policy; the closing thread): save what was captured at the latest roll.
     *
     * @param durableThrough every record up to here is forced (under {@code OS}: appended)
     * @return whether the segments may go now; false keeps them until the next call
     */
    boolean mayUnlink(long durableThrough);
}
