package io.ringbus.core;

/**
 * What a durable stream holds now.
 *
 * @param name                the stream
 * @param messages            messages retained
 * @param bytes               bytes retained (on disk for the local log)
 * @param firstSequence       the oldest retained sequence (last + 1 when empty)
 * @param lastSequence        the newest sequence stored, 0 when nothing ever was
 * @param duplicateIds        message ids remembered in the duplicate window (0 where the store keeps
 *                            them itself, as JetStream does)
 * @param duplicateBytes      the memory those ids take, as {@link StreamConfig#duplicateWindowBytes()}
 *                            counts it
 * @param duplicatesForgotten ids forgotten before their window ended because the window was full
 * @param deleted             sequences between the first and the last that the stream no longer holds
 *                            (deleted, purged, or superseded by the per-subject limit)
 * @param subjects            distinct subjects held, or -1 when not counted (the local log counts
 *                            once its index of subjects is built, see {@link StoredStream#subjectCount})
 */
public record StreamInfo(String name, long messages, long bytes, long firstSequence, long lastSequence,
                         long duplicateIds, long duplicateBytes, long duplicatesForgotten, long deleted,
                         long subjects) {
    /**
     * A stream that counts no deleted sequences nor subjects.
     *
     * @param name                the stream
     * @param messages            messages retained
     * @param bytes               bytes retained
     * @param firstSequence       the oldest retained sequence
     * @param lastSequence        the newest sequence stored
     * @param duplicateIds        message ids remembered
     * @param duplicateBytes      their memory
     * @param duplicatesForgotten ids forgotten early
     */
    public StreamInfo(String name, long messages, long bytes, long firstSequence, long lastSequence,
                      long duplicateIds, long duplicateBytes, long duplicatesForgotten) {
        this(name, messages, bytes, firstSequence, lastSequence, duplicateIds, duplicateBytes, duplicatesForgotten,
                0, -1);
    }

    /**
     * A stream whose store keeps no duplicate window of its own.
     *
     * @param name          the stream
     * @param messages      messages retained
     * @param bytes         bytes retained
     * @param firstSequence the oldest retained sequence
     * @param lastSequence  the newest sequence stored
     */
    public StreamInfo(String name, long messages, long bytes, long firstSequence, long lastSequence) {
        this(name, messages, bytes, firstSequence, lastSequence, 0, 0, 0);
    }
}
