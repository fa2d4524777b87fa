package io.ringbus.server.spi;

/**
 * One request to an extension's subject: what the client published, and the way to answer it.
 * Its bytes are copies, so it may be passed to any thread and kept.
 */
public interface ApiRequest {
    /** @return the subject it was published to */
    String subject();

    /** @return the reply subject, or {@code null} when the client expects no answer */
    String replyTo();

    /** @return the NATS header block as received ({@code NATS/1.0\r\n...\r\n\r\n}), or {@code null} for a PUB */
    byte[] headers();

    /** @return the payload bytes */
    byte[] payload();

    /** @return who sent it */
    Requester requester();

    /**
     * Publishes the answer to {@link #replyTo()} on the requester's behalf, at its scope (the reply
     * subject was checked against its scope and permissions before the handler was called); a
     * client with echo off gets it too. Nothing when there is no reply subject. Any thread; may
     * wait while the broker's ring is full.
     *
     * @param headers a NATS header block, or {@code null}
     * @param payload the answer's payload
     */
    void reply(byte[] headers, byte[] payload);
}
