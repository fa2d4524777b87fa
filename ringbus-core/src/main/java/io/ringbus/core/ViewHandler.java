package io.ringbus.core;

/**
 * A {@link MessageHandler} that reads each message only while {@link #onMessage} runs and never
 * keeps the {@link Message} object itself (it may keep what {@link Message#copy()} returns).
 *
 * <p>A {@link ExecutionMode#PUBLISHER} subscription whose handler is one may be given the message
 * a publisher lent with {@link Client#tryPublishView}: a view of the publisher's own buffer,
 * with no copy and no message object per publish. Any other handler gets an immutable copy of
 * such a message, so a plain handler never sees a view outside the {@code EVENT_LOOP} mode
 * (a {@link MessageFilter} may: it reads the message only during its test, by its contract).
 *
 * <p>The network server's subscriptions are view handlers: each encodes the message into its
 * client's output buffer straight from the publishing client's input.
 */
public interface ViewHandler extends MessageHandler {
}
