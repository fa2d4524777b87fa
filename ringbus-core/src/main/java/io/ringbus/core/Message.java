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
    /**
     * The header that carries a message's priority: one digit, {@code 0} (lowest) to {@code 9}
     * (highest), as JMS priorities. Absent, or anything else: {@link #DEFAULT_PRIORITY}.
     */
    String PRIORITY_HEADER = "Ringbus-Priority";
    /** The priority of a message without a {@link #PRIORITY_HEADER}: 4, as JMS's default. */
    int DEFAULT_PRIORITY = 4;
    /** The highest priority. */
    int MAX_PRIORITY = 9;
    /**
     * Starvation bound: of every 16 messages handed over while messages of several priorities
     * wait, at least one is of the lowest priority waiting (the rest go highest first).
     */
    int PRIORITY_SHARE = 16;

    /** @return the subject the message was published to; never {@code null} */
    String subject();

    /** @return the subject to reply to, or {@code null} when none was given */
    String replyTo();

    /** @return the headers; {@link Headers#EMPTY} when none were given */
    Headers headers();

    /** @return the payload, possibly {@code null} */
    Object payload();

    /**
     * The message's priority, from its {@link #PRIORITY_HEADER}. Wherever messages wait for a
     * subscriber (a WORKER or VIRTUAL buffer, a network client's pending output), a higher
     * priority is handed over first; within one priority, publish order is kept. A subscriber that
     * keeps up (nothing waits) sees publish order unchanged. Lower priorities are not starved:
     * at least one take in {@link #PRIORITY_SHARE} serves the lowest priority waiting.
     *
     * @return 0 (lowest) to 9 (highest); {@link #DEFAULT_PRIORITY} without a valid header
     */
    default int priority() {
        return priorityOf(headers());
    }

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

    /**
     * Headers that give a message {@code priority}.
     *
     * @param priority 0..9
     * @return headers with {@link #PRIORITY_HEADER}
     * @throws IllegalArgumentException naming the value when it is not 0..9
     */
    static Headers priorityHeaders(int priority) {
        if (priority < 0 || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority must be in 0.." + MAX_PRIORITY + ": priority=" + priority);
        }
        return Headers.of(PRIORITY_HEADER, String.valueOf(priority));
    }

    /**
     * Reads a priority from headers without allocating (an ASCII NATS header block is read in place).
     *
     * @param headers the headers, possibly {@code null}
     * @return 0..9, or {@link #DEFAULT_PRIORITY} without a valid {@link #PRIORITY_HEADER}
     */
    static int priorityOf(Headers headers) {
        return io.ringbus.core.internal.filter.MessagePriority.of(headers);
    }
}
