package io.ringbus.core;

import java.time.Duration;
import java.util.List;

/**
 * A durable consumer of a {@link StoredStream}: pulls messages in stream order, at least once,
 * and remembers what was acknowledged across restarts.
 *
 * <p><b>Delivery.</b> {@link #fetch} returns messages not yet delivered (in sequence order) and
 * messages due for redelivery: those {@link #nak}ed once their delay passed, and those neither
 * acknowledged nor nak'ed within {@link ConsumerConfig#ackWait()}. At most
 * {@link ConsumerConfig#maxAckPending()} messages are out at once. A message delivered
 * {@link ConsumerConfig#maxDeliver()} times is not delivered again.
 *
 * <p><b>Threading.</b> Thread-safe; handles opened on the same name share one position and each
 * message goes to one fetcher (a queue group across handles, and across processes for JetStream).
 */
public interface StreamConsumer extends AutoCloseable {
    /** @return its configuration */
    ConsumerConfig config();

    /**
     * Takes up to {@code max} messages, waiting up to {@code wait} for the first.
     *
     * @param max  the most messages wanted, &gt;= 1
     * @param wait how long to wait when none is ready
     * @return the messages, possibly none; never {@code null}
     * @throws InterruptedException when interrupted while waiting
     * @throws StorageException     when the store failed
     * @throws IllegalStateException when the consumer is closed
     */
    List<StoredMessage> fetch(int max, Duration wait) throws InterruptedException;

    /**
     * Acknowledges a message: it is not delivered again, also after a restart (within the store's
     * stated window, see {@code docs/storage.md}).
     *
     * @param message a message this consumer delivered
     */
    void ack(StoredMessage message);

    /**
     * Asks for a message to be delivered again after {@code delay}.
     *
     * @param message a message this consumer delivered
     * @param delay   how long to wait first; {@link Duration#ZERO} for at once
     */
    void nak(StoredMessage message, Duration delay);

    /**
     * Gives a message up: it is never delivered again (after a dead-letter copy was made, or on purpose).
     *
     * @param message a message this consumer delivered
     */
    void term(StoredMessage message);

    /** @return its counters now */
    ConsumerStats stats();

    /**
     * Closes this handle. Messages it fetched and did not acknowledge are delivered again after
     * their ack wait (JetStream) or at once (local). The consumer's position stays stored. A
     * {@link #fetch} waiting on this handle in another thread ends at once with
     * {@link IllegalStateException}: close the handle, rather than interrupt a thread that fetches
     * (an interrupt during the local store's file I/O closes the file for every reader).
     */
    @Override
    void close();
}
