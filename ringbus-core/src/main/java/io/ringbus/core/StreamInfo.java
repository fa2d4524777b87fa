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
 * @param keyedIds            the per-key outbox ids ({@link StreamConfig#keyDedupBytes()}); all zero when off
 */
public record StreamInfo(String name, long messages, long bytes, long firstSequence, long lastSequence,
                         long duplicateIds, long duplicateBytes, long duplicatesForgotten, long deleted,
                         long subjects, KeyedIds keyedIds) {
    /**
     * What a stream's per-key outbox ids hold and did ({@link StreamConfig#keyDedupBytes()}).
     *
     * @param keys       keys remembered now
     * @param bytes      the memory they take, as {@link StreamConfig#KEY_DEDUP_ENTRY_OVERHEAD} counts it
     * @param evicted    keys forgotten because the bound was reached (least recently updated first):
     *                   their messages fall back to the duplicate window
     * @param duplicates messages not stored because their key had stored that number or a higher one
     */
    public record KeyedIds(long keys, long bytes, long evicted, long duplicates) {
        /** Off, or nothing yet. */
        public static final KeyedIds NONE = new KeyedIds(0, 0, 0, 0);
    }

    /**
     * Checks that the per-key figures are there.
     *
     * @throws NullPointerException when {@code keyedIds} is null
     */
    public StreamInfo {
        java.util.Objects.requireNonNull(keyedIds, "keyedIds");
    }

    /**
     * A stream without per-key outbox ids.
     *
     * @param name                the stream
     * @param messages            messages retained
     * @param bytes               bytes retained
     * @param firstSequence       the oldest retained sequence
     * @param lastSequence        the newest sequence stored
     * @param duplicateIds        message ids remembered
     * @param duplicateBytes      their memory
     * @param duplicatesForgotten ids forgotten early
     * @param deleted             sequences no longer held between the first and the last
     * @param subjects            distinct subjects held, or -1
     */
    public StreamInfo(String name, long messages, long bytes, long firstSequence, long lastSequence,
                      long duplicateIds, long duplicateBytes, long duplicatesForgotten, long deleted, long subjects) {
        this(name, messages, bytes, firstSequence, lastSequence, duplicateIds, duplicateBytes, duplicatesForgotten,
                deleted, subjects, KeyedIds.NONE);
    }
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
