package io.ringbus.core.internal.log;

/**
 * A snapshot of a {@link SegmentLog}'s counters.
 *
 * @param firstSequence         the oldest retained sequence ({@code lastSequence + 1} when empty)
 * @param lastSequence          the newest appended sequence, 0 before the first append
 * @param durableSequence       the newest sequence durable under the policy
 * @param records               records retained, counting any lost to corruption
 * @param bytes                 bytes of the segment files
 * @param segments              segment files
 * @param fsyncs                {@code fsync}s since open (flusher, rolls, close)
 * @param truncatedTailBytes    bytes of torn tails truncated by recovery since open
 * @param corruptRecordsSkipped corrupt records skipped since open, by recovery or by readers, each once
 */
public record LogStats(long firstSequence, long lastSequence, long durableSequence, long records, long bytes,
                       int segments, long fsyncs, long truncatedTailBytes, long corruptRecordsSkipped) {
}
