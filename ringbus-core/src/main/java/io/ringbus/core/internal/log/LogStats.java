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
 * @param indexFsyncs           {@code fsync}s of index files since open (seals, checkpoints, close)
 * @param openReadBytes         bytes recovery read from segment and index files when the log was opened:
 *                              the tails it scanned and one record per sealed segment, not the log's size
 * @param openScannedSegments   segments recovery scanned when the log was opened (the active one, and any
 *                              rolled segment without a valid seal); the others were taken from their seal
 */
public record LogStats(long firstSequence, long lastSequence, long durableSequence, long records, long bytes,
                       int segments, long fsyncs, long truncatedTailBytes, long corruptRecordsSkipped,
                       long indexFsyncs, long openReadBytes, int openScannedSegments) {
}
