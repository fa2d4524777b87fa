package io.ringbus.outbox;

import io.ringbus.core.Headers;
import java.time.Instant;
import java.util.Objects;

/**
 * One row of the outbox as a sink receives it.
 *
 * <p>{@link #eventId()} is stable across redeliveries of the same row (it is derived from the row
 * id), so consumers deduplicate on it; every built-in sink sends it as the {@value #EVENT_ID_HEADER}
 * header. The payload array is shared, not copied: sinks must not modify it.
 *
 * <p>Immutable in its fields; the payload array is handed over as is, so do not modify it; safe to share between threads.
 *
 * @param id        the row id, increasing in append order
 * @param eventId   the stable event id ({@code eventIdPrefix + id})
 * @param subject   the literal subject it was appended to
 * @param key       the ordering key, or {@code null} for no ordering
 * @param payload   the payload bytes
 * @param headers   the headers given at append (without the event id header)
 * @param attempts  how many delivery attempts failed before this one
 * @param createdAt when the row was appended (database clock)
 */
public record OutboxEvent(long id, String eventId, String subject, String key, byte[] payload, Headers headers,
                          int attempts, Instant createdAt) {
    /** The header that carries {@link #eventId()} to consumers. */
    public static final String EVENT_ID_HEADER = "Ringbus-Event-Id";
    /** The header that carries {@link #key()} to consumers, when the row has a key. */
    public static final String KEY_HEADER = "Ringbus-Key";

    /** Checks the components. */
    public OutboxEvent {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(createdAt, "createdAt");
    }

    /** @return the headers plus {@value #EVENT_ID_HEADER} and, if keyed, {@value #KEY_HEADER} */
    public Headers headersWithEventId() {
        Headers.Builder builder = Headers.builder();
        for (String name : headers.names()) {
            for (String value : headers.all(name)) {
                builder.add(name, value);
            }
        }
        builder.add(EVENT_ID_HEADER, eventId);
        if (key != null) {
            builder.add(KEY_HEADER, key);
        }
        return builder.build();
    }

    @Override
    public String toString() {
        return "OutboxEvent[id=" + id + ", subject=" + subject + ", key=" + key + ", payload=" + payload.length
                + " bytes, attempts=" + attempts + ", createdAt=" + createdAt + "]";
    }
}
