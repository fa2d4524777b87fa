package io.ringbus.outbox;

import io.nats.client.support.NatsJetStreamConstants;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import java.nio.charset.StandardCharsets;

/**
 * What an {@link Inbox} needs of a delivered message, whatever the transport: its event id (what
 * makes a redelivery a duplicate), and, to record a refusal, its key, subject and payload.
 *
 * <p>The outbox's sinks label every event: {@value OutboxEvent#EVENT_ID_HEADER} = the event id
 * and {@value OutboxEvent#KEY_HEADER} = the key (the broker, JetStream and webhook sinks), and on
 * JetStream also {@code Nats-Msg-Id} = the event id. {@link #of(Message)} and
 * {@link #of(io.nats.client.Message)} read those headers; {@link #of(String, String)} takes the id
 * from anywhere else (an HTTP request's header, a Kafka record's).
 *
 * <p>Immutable in its fields (the payload array is not copied); no component is checked here:
 * a message without a usable id is what {@link Inbox#process} refuses, with {@link #refusal()}.
 *
 * @param eventId the event id, or {@code null} when the message carries none
 * @param key     the ordering key, or {@code null}
 * @param subject the subject or topic it arrived on, or {@code null}
 * @param payload the payload, or {@code null}; recorded only with a refusal
 */
public record InboxMessage(String eventId, String key, String subject, byte[] payload) {
    /** The longest event id an inbox records (the column's width). */
    public static final int MAX_EVENT_ID_LENGTH = 255;
    /** The longest key an inbox records (the column's width, as the outbox's). */
    public static final int MAX_KEY_LENGTH = OutboxBuilder.MAX_KEY_LENGTH;

    /**
     * @param eventId the event id, or {@code null}
     * @param key     the key, or {@code null}
     * @return a message with no subject and no payload
     */
    public static InboxMessage of(String eventId, String key) {
        return new InboxMessage(eventId, key, null, null);
    }

    /**
     * Reads a ringbus broker message, as {@link BrokerSink} delivers it: the event id from
     * {@value OutboxEvent#EVENT_ID_HEADER}, the key from {@value OutboxEvent#KEY_HEADER}; a
     * {@code byte[]} or {@code String} payload is kept (for a refusal's record), any other is not.
     *
     * @param message the delivered message
     * @return its inbox view
     */
    public static InboxMessage of(Message message) {
        Headers headers = message.headers();
        Object payload = message.payload();
        byte[] bytes = payload instanceof byte[] b ? b
                : payload instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : null;
        return new InboxMessage(headers.first(OutboxEvent.EVENT_ID_HEADER), headers.first(OutboxEvent.KEY_HEADER),
                message.subject(), bytes);
    }

    /**
     * Reads a NATS message, as {@link JetStreamSink} publishes it: the event id from
     * {@value OutboxEvent#EVENT_ID_HEADER}, or from {@code Nats-Msg-Id} when a publisher other
     * than the outbox set only that; the key from {@value OutboxEvent#KEY_HEADER}.
     *
     * @param message the delivered message
     * @return its inbox view
     */
    public static InboxMessage of(io.nats.client.Message message) {
        io.nats.client.impl.Headers headers = message.getHeaders();
        String eventId = null;
        String key = null;
        if (headers != null) {
            eventId = headers.getFirst(OutboxEvent.EVENT_ID_HEADER);
            if (eventId == null) {
                eventId = headers.getFirst(NatsJetStreamConstants.MSG_ID_HDR);
            }
            key = headers.getFirst(OutboxEvent.KEY_HEADER);
        }
        return new InboxMessage(eventId, key, message.getSubject(), message.getData());
    }

    /**
     * @return why an inbox must not apply this message, or {@code null} when its event id and key
     *         can be recorded: a missing or blank id, an id or key too long for its column, or one
     *         with control characters
     */
    public String refusal() {
        if (eventId == null) {
            return "no event id: the message has no " + OutboxEvent.EVENT_ID_HEADER + " (nor Nats-Msg-Id) header";
        }
        if (eventId.isBlank()) {
            return "blank event id: eventId='" + eventId + "'";
        }
        if (eventId.length() > MAX_EVENT_ID_LENGTH) {
            return "event id longer than " + MAX_EVENT_ID_LENGTH + " characters: length=" + eventId.length();
        }
        if (eventId.chars().anyMatch(Character::isISOControl)) {
            return "event id with a control character: eventId=" + printable(eventId);
        }
        if (key != null && key.length() > MAX_KEY_LENGTH) {
            return "key longer than " + MAX_KEY_LENGTH + " characters: length=" + key.length()
                    + " (eventId=" + eventId + ")";
        }
        if (key != null && key.chars().anyMatch(Character::isISOControl)) {
            // PostgreSQL stores no NUL in text: the insert would fail and the message come back for ever
            return "key with a control character: key=" + printable(key) + " (eventId=" + eventId + ")";
        }
        return null;
    }

    /**
     * @param value a header value as received, or null
     * @return it with each control character as {@code ?}: fit for a log line and for any database's text
     */
    static String printable(String value) {
        return value == null ? null : value.replaceAll("\\p{Cntrl}", "?");
    }

    @Override
    public String toString() {
        return "InboxMessage[eventId=" + printable(eventId) + ", key=" + printable(key) + ", subject="
                + printable(subject) + ", payload=" + (payload == null ? "none" : payload.length + " bytes") + "]";
    }
}
