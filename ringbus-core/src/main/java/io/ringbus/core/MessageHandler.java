package io.ringbus.core;

/**
 * Receives the messages of one subscription.
 *
 * <p>An exception thrown here goes to the broker's {@link ErrorHandler} and is counted; delivery
 * continues with the next message. In {@link ExecutionMode#EVENT_LOOP} mode the {@link Message}
 * is a view of a ring slot that is valid only until this method returns: call
 * {@link Message#copy()} to keep it.
 *
 * <p>Threading: which thread calls it is the subscription's {@link ExecutionMode}. In
 * {@code EVENT_LOOP}, {@code WORKER} and {@code VIRTUAL} mode one subscription's handler is never
 * called concurrently with itself and sees each publisher's messages in publish order; it runs on
 * the dispatch thread (and must not block), a worker thread, or a virtual thread. In
 * {@code PUBLISHER} mode it runs on each publishing thread, concurrently when several publish, and
 * must be thread-safe. Different subscriptions' handlers run concurrently, so state they share
 * needs its own synchronization.
 */
@FunctionalInterface
public interface MessageHandler {
    /**
     * Handles one message.
     *
     * @param message the message; never {@code null}
     */
    void onMessage(Message message);
}
