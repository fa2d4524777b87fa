package io.ringbus.core;

/**
 * Receives the messages of one subscription.
 *
 * <p>An exception thrown here goes to the broker's {@link ErrorHandler} and is counted; delivery
 * continues with the next message. In {@link ExecutionMode#EVENT_LOOP} mode the {@link Message}
 * is a view of a ring slot that is valid only until this method returns: call
 * {@link Message#copy()} to keep it.
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
