package io.ringbus.core;

/**
 * Reads the messages of one {@link StoredStream} by sequence, for a reader that mostly moves
 * forward (JetStream's consumers): a store may keep its place between calls, so that reading
 * {@code n}, then {@code n + 1}, costs no seek. Reading backwards, or far ahead, is allowed and
 * costs what {@link StoredStream#read} costs.
 *
 * <p>Every call answers as {@link StoredStream#read} would at that moment: a message removed by a
 * limit, a purge or a delete since the reader passed it is not returned.
 *
 * <p>Not thread-safe: one thread at a time. Holds no file of its own; needs no closing.
 */
@FunctionalInterface
public interface StreamReader {
    /**
     * Reads one stored message.
     *
     * @param sequence its sequence
     * @return the message, or {@code null} when the stream does not hold it
     * @throws StorageException      when it cannot be read
     * @throws IllegalStateException when the stream is closed
     */
    StoredMessage read(long sequence);

    /**
     * Reads only the subject of one stored message (a filter's test), without copying its headers
     * or payload where the store can.
     *
     * @param sequence its sequence
     * @return its subject, or {@code null} when the stream does not hold it
     * @throws StorageException      when it cannot be read
     * @throws IllegalStateException when the stream is closed
     */
    default String subject(long sequence) {
        StoredMessage message = read(sequence);
        return message == null ? null : message.subject();
    }
}
