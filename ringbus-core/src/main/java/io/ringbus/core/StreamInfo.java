package io.ringbus.core;

/**
 * What a durable stream holds now.
 *
 * @param name          the stream
 * @param messages      messages retained
 * @param bytes         bytes retained (on disk for the local log)
 * @param firstSequence the oldest retained sequence (last + 1 when empty)
 * @param lastSequence  the newest sequence stored, 0 when nothing ever was
 */
public record StreamInfo(String name, long messages, long bytes, long firstSequence, long lastSequence) {
}
