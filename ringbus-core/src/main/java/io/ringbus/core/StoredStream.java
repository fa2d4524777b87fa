package io.ringbus.core;

import java.util.concurrent.CompletableFuture;

/**
 * One durable stream of a {@link Storage}: appends acknowledged once durable, and durable
 * consumers that read it. Thread-safe: any thread may append and open consumers concurrently.
 *
 * <p><b>Bounded.</b> A stream accepts at most {@link Storage#maxPendingBytes()} of appends not yet
 * acknowledged; {@link #append} waits for room and {@link #tryAppend} refuses. Nothing is buffered
 * without bound and nothing accepted is dropped.
 *
 * <p><b>Order.</b> Appends from one thread are stored, acknowledged and read in call order.
 */
public interface StoredStream {
    /** @return its configuration as opened */
    StreamConfig config();

    /**
     * Appends a message, waiting while the stream's pending bytes are at their limit.
     *
     * @param subject a literal subject the stream's pattern matches
     * @param headers headers, or {@code null}
     * @param payload the payload bytes (not copied: do not modify until the future completes)
     * @param msgId   a message id for duplicate detection within the duplicate window, or {@code null}
     * @return completes with the ack once the message is durable under the store's policy, or
     *         exceptionally with {@link StorageException} when it could not be stored
     * @throws IllegalArgumentException when the subject is not the stream's or the message is too large
     * @throws IllegalStateException    when the stream is closed
     */
    CompletableFuture<PublishAck> append(String subject, Headers headers, byte[] payload, String msgId);

    /**
     * Appends a message only if the stream's pending bytes leave room now.
     *
     * @param subject a literal subject the stream's pattern matches
     * @param headers headers, or {@code null}
     * @param payload the payload bytes (not copied)
     * @param msgId   a message id, or {@code null}
     * @return as {@link #append}, or {@code null}, with nothing appended, when there is no room
     * @throws IllegalArgumentException when the subject is not the stream's or the message is too large
     * @throws IllegalStateException    when the stream is closed
     */
    CompletableFuture<PublishAck> tryAppend(String subject, Headers headers, byte[] payload, String msgId);

    /**
     * Opens a durable consumer, creating it at {@link ConsumerConfig#start()} if it does not exist,
     * else resuming after its acknowledged messages. Opening the same name again returns a handle
     * that shares the consumer: each message goes to one of them. The local store has made a new
     * consumer durable when this returns: a crash or a power cut after it keeps the consumer at the
     * position it was created at (a {@code NEW} consumer is not created again at a later end).
     *
     * @param config the consumer
     * @return the consumer
     * @throws IllegalArgumentException when an existing consumer of that name has another filter
     * @throws StorageException         when the store cannot create it
     */
    StreamConsumer consumer(ConsumerConfig config);

    /** @return what it holds now */
    StreamInfo info();

    /**
     * Calls {@code listener} after each message this stream stores, on the storing thread (it must
     * return at once: hand the work to a thread of its own). For readers that poll the stream, such as
     * JetStream's consumers, to read a new message at once rather than at their next poll.
     *
     * @param listener what to call
     * @return whether this store calls listeners (the default: it does not, poll it)
     */
    default boolean onAppend(Runnable listener) {
        return false;
    }

    /**
     * Reads one stored message.
     *
     * @param sequence its sequence
     * @return the message, or {@code null} when the stream does not hold it (never stored, or
     *         removed by a limit)
     * @throws UnsupportedOperationException when this store cannot (the default)
     * @throws StorageException              when it cannot be read
     */
    default StoredMessage read(long sequence) {
        throw new UnsupportedOperationException("stream '" + config().name() + "' cannot be read by sequence");
    }

    /**
     * Opens a reader of this stream by sequence that keeps its place between calls (see
     * {@link StreamReader}): the way to read a stream forward one message at a time.
     *
     * @return a reader for one thread; by default one that calls {@link #read} each time
     */
    default StreamReader newReader() {
        return this::read;
    }

    /**
     * Reads the oldest stored message at or after {@code fromSequence} whose subject matches
     * {@code pattern} (JetStream's {@code next_by_subj}). The local log answers "none" from its index
     * of subjects when no matching subject has a message that late, else reads forward from
     * {@code fromSequence} to the first match.
     *
     * @param pattern      a subject or wildcard pattern
     * @param fromSequence the first sequence looked at (below the stream's first: from its first)
     * @return the message, or {@code null} when none matches
     * @throws IllegalArgumentException      when the pattern is malformed
     * @throws UnsupportedOperationException when this store cannot (the default)
     * @throws StorageException              when it cannot be read
     */
    default StoredMessage nextBySubject(String pattern, long fromSequence) {
        throw new UnsupportedOperationException("stream '" + config().name() + "' cannot be read by subject");
    }

    /**
     * Reads the newest stored message whose subject matches {@code pattern}. The local log reads its
     * index of subjects (built with one read of the stream the first time it is needed).
     *
     * @param pattern a subject or wildcard pattern
     * @return the message, or {@code null} when none matches
     * @throws IllegalArgumentException      when the pattern is malformed
     * @throws UnsupportedOperationException when this store cannot (the default)
     * @throws StorageException              when it cannot be read
     */
    default StoredMessage lastBySubject(String pattern) {
        throw new UnsupportedOperationException("stream '" + config().name() + "' cannot be read by subject");
    }

    /**
     * Returns the newest sequence of one subject, from an index kept by subject (the local log builds
     * it with one read of the stream the first time it is asked, then keeps it with every append).
     *
     * @param subject a literal subject
     * @return its newest held sequence, 0 when the stream holds none
     * @throws IllegalArgumentException      when the subject is malformed
     * @throws UnsupportedOperationException when this store cannot (the default)
     */
    default long lastSequenceOf(String subject) {
        throw new UnsupportedOperationException("stream '" + config().name() + "' keeps no index by subject");
    }

    /**
     * @return the distinct subjects the stream holds (see {@link #lastSequenceOf} for the index)
     * @throws UnsupportedOperationException when this store cannot (the default)
     */
    default long subjectCount() {
        throw new UnsupportedOperationException("stream '" + config().name() + "' keeps no index by subject");
    }

    /**
     * Counts the messages held in {@code [from, to]} whose subject matches {@code pattern}: what a
     * filtered JetStream consumer has pending. The default reads each sequence ({@link #read}); the
     * local log reads the range once, in order, and a literal subject's range only from that
     * subject's first message.
     *
     * @param pattern a subject or wildcard pattern
     * @param from    the first sequence counted
     * @param to      the last sequence counted
     * @return how many match
     * @throws IllegalArgumentException      when the pattern is malformed
     * @throws UnsupportedOperationException when this store cannot read by sequence (the default's {@link #read})
     */
    default long countMatching(String pattern, long from, long to) {
        long count = 0;
        for (long sequence = Math.max(1, from); sequence <= to; sequence++) {
            StoredMessage message = read(sequence);
            if (message != null && Subject.matches(pattern, message.subject())) {
                count++;
            }
        }
        return count;
    }

    /**
     * Removes one message, durably before it returns: no read, consumer or restart returns it again.
     *
     * @param sequence its sequence
     * @return whether the stream held it
     * @throws UnsupportedOperationException when this store cannot (the default)
     * @throws StorageException              when the removal cannot be made durable
     */
    default boolean delete(long sequence) {
        throw new UnsupportedOperationException("stream '" + config().name() + "' cannot delete messages");
    }

    /**
     * Removes messages (JetStream's purge), durably before it returns.
     *
     * @param subjectPattern only messages whose subject matches it, or {@code null} for all
     * @param belowSequence  when positive, only messages below this sequence
     * @param keep           when positive, keeps the newest {@code keep} of the messages selected
     * @return how many messages were removed
     * @throws IllegalArgumentException      when both {@code belowSequence} and {@code keep} are
     *                                       positive, or the pattern is malformed
     * @throws UnsupportedOperationException when this store cannot (the default)
     * @throws StorageException              when the removal cannot be made durable
     */
    default long purge(String subjectPattern, long belowSequence, long keep) {
        throw new UnsupportedOperationException("stream '" + config().name() + "' cannot be purged");
    }
}
