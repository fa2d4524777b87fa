package io.ringbus.core;

/**
 * A live subscription. Thread-safe.
 *
 * <p>After {@link #unsubscribe()} returns, the handler is not called for any message that a
 * dispatch thread has not already started handing to it.
 */
public interface Subscription extends AutoCloseable {
    /** @return the broker-unique id of this subscription */
    long id();

    /** @return the subject or wildcard pattern subscribed to */
    String pattern();

    /** @return the scope of the client that subscribed: the most this subscription can see */
    Scope scope();

    /** @return the options it was created with */
    SubscribeOptions options();

    /** @return {@code true} until unsubscribed, disconnected as a slow consumer, or the broker closed */
    boolean isActive();

    /** @return messages handed to the handler so far */
    long delivered();

    /** @return messages waiting in this subscription's buffer (always 0 in event-loop mode) */
    long pending();

    /** @return messages dropped for this subscription under its overflow policy */
    long dropped();

    /**
     * @return messages routed to this subscription that its filter ({@link SubscribeOptions#filter})
     *         rejected; 0 without a filter
     */
    default long filtered() {
        return 0;
    }

    /**
     * Stops delivery. Buffered, not yet handled messages of a WORKER or VIRTUAL subscription are
     * discarded (not counted as drops: the subscriber asked for it). Idempotent.
     */
    void unsubscribe();

    /**
     * Unsubscribes automatically once {@code maxMessages} messages in total were delivered
     * (NATS {@code UNSUB <sid> <max>}); at once if that many were delivered already.
     *
     * @param maxMessages total messages to deliver, &gt; 0
     * @throws IllegalArgumentException when {@code maxMessages <= 0}
     */
    void unsubscribeAfter(long maxMessages);

    /** Same as {@link #unsubscribe()}. */
    @Override
    default void close() {
        unsubscribe();
    }
}
