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
 */
public record StreamInfo(String name, long messages, long bytes, long firstSequence, long lastSequence,
                         long duplicateIds, long duplicateBytes, long duplicatesForgotten) {
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
