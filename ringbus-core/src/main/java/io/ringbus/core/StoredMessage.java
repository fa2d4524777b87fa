package io.ringbus.core;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A message read from a durable stream by a {@link StreamConsumer}: the message as published, its
 * place in the stream and how often it was delivered. Immutable and detached: it may be passed to
 * any thread and kept after the handler returns.
 *
 * <p>The payload is the stored bytes ({@code byte[]}); {@link #payloadAsString()} decodes UTF-8.
 */
public final class StoredMessage implements Message {
    private final String stream;
    private final long sequence;
    private final long timestampMillis;
    private final int deliveries;
    private final String subject;
    private final Headers headers;
    private final byte[] payload;
    private final Object receipt;

    /**
     * Called by stores.
     *
     * @param stream          the stream's name
     * @param sequence        its sequence in the stream
     * @param timestampMillis when it was stored, epoch milliseconds
     * @param deliveries      1 on the first delivery, 2 on the first redelivery, ...
     * @param subject         its subject
     * @param headers         its headers, or {@code null} for none
     * @param payload         its payload bytes (not copied)
     * @param receipt         what the store needs to acknowledge it, or {@code null}
     */
    public StoredMessage(String stream, long sequence, long timestampMillis, int deliveries, String subject,
                         Headers headers, byte[] payload, Object receipt) {
        this.stream = Objects.requireNonNull(stream, "stream");
        this.sequence = sequence;
        this.timestampMillis = timestampMillis;
        this.deliveries = deliveries;
        this.subject = Objects.requireNonNull(subject, "subject");
        this.headers = headers == null ? Headers.EMPTY : headers;
        this.payload = payload == null ? new byte[0] : payload;
        this.receipt = receipt;
    }

    /** @return the stream that stored it */
    public String stream() {
        return stream;
    }

    /** @return its sequence in the stream, from 1 */
    public long sequence() {
        return sequence;
    }

    /** @return when it was stored, epoch milliseconds */
    public long timestampMillis() {
        return timestampMillis;
    }

    /** @return 1 on the first delivery, more on redeliveries */
    public int deliveries() {
        return deliveries;
    }

    /** @return the store's handle for acknowledging it; only the store that made it reads this */
    public Object receipt() {
        return receipt;
    }

    @Override
    public String subject() {
        return subject;
    }

    /** @return {@code null}: a stored message has no reply subject (the publisher got its PubAck) */
    @Override
    public String replyTo() {
        return null;
    }

    @Override
    public Headers headers() {
        return headers;
    }

    /** @return the stored bytes, a {@code byte[]}; not a copy: do not modify */
    @Override
    public byte[] payload() {
        return payload;
    }

    /** @return the payload decoded as UTF-8 */
    public String payloadAsString() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** @return 0: a stored message does not keep its publisher's client id */
    @Override
    public long origin() {
        return 0;
    }

    /** @return this message: it is immutable already */
    @Override
    public Message copy() {
        return this;
    }

    @Override
    public String toString() {
        return "StoredMessage{stream=" + stream + ", seq=" + sequence + ", subject=" + subject + ", deliveries="
                + deliveries + ", bytes=" + payload.length + '}';
    }
}
