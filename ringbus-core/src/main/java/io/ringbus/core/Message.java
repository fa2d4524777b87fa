package io.ringbus.core;

/**
 * One message: a subject, an optional reply subject, headers and a payload.
 *
 * <p>The payload is an object reference handed over as is (in-process, nothing is serialized);
 * publishers must not mutate it after publishing. A message given to an
 * {@link ExecutionMode#EVENT_LOOP} handler lives in a ring slot and is valid only during the
 * handler call; {@link #copy()} detaches it.
 *
 * <p>Threading: a message is read by the handler it was given to; a copy is immutable and may be
 * passed to other threads (its payload is as thread-safe as the object the publisher handed over).
 */
public interface Message {
    /** @return the subject the message was published to; never {@code null} */
    String subject();

    /** @return the subject to reply to, or {@code null} when none was given */
    String replyTo();

    /** @return the headers; {@link Headers#EMPTY} when none were given */
    Headers headers();

    /** @return the payload, possibly {@code null} */
    Object payload();

    /**
     * @return the id of the client that published the message ({@link Client#id()}); 0 for the
     *         broker itself and its shared scoped views
     */
    long origin();

    /**
     * Returns the payload cast to {@code type}.
     *
     * @param type the expected payload type
     * @param <T>  the payload type
     * @return the payload, possibly {@code null}
     * @throws ClassCastException when the payload is not a {@code type}, naming both types
     */
    default <T> T payload(Class<T> type) {
        Object payload = payload();
        if (payload != null && !type.isInstance(payload)) {
            throw new ClassCastException("payload of subject '" + subject() + "' is a "
                    + payload.getClass().getName() + ", not a " + type.getName());
        }
        return type.cast(payload);
    }

    /**
     * Returns an immutable copy that stays valid after the handler returns.
     *
     * @return a detached message with the same subject, reply subject, headers and payload
     */
    Message copy();

    /**
     * Creates a detached message.
     *
     * @param subject the subject
     * @param replyTo the reply subject or {@code null}
     * @param headers the headers or {@code null} for none
     * @param payload the payload or {@code null}
     * @return an immutable message
     */
    static Message of(String subject, String replyTo, Headers headers, Object payload) {
        return new DetachedMessage(subject, replyTo, headers == null ? Headers.EMPTY : headers, payload, 0);
    }

    /**
     * Creates a detached message that names its publishing client.
     *
     * @param subject the subject
     * @param replyTo the reply subject or {@code null}
     * @param headers the headers or {@code null} for none
     * @param payload the payload or {@code null}
     * @param origin  the publishing client's id
     * @return an immutable message
     */
    static Message of(String subject, String replyTo, Headers headers, Object payload, long origin) {
        return new DetachedMessage(subject, replyTo, headers == null ? Headers.EMPTY : headers, payload, origin);
    }
}
