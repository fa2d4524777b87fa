package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;

/**
 * Receives the operations {@link NatsParser} decodes from one client connection, in order, on the
 * connection's Netty event loop. A PUB's or HPUB's bytes are given as the parser's input buffer and
 * where in it they lie, with no slice object per message: valid only during the call (copy them to
 * keep them), and the buffer's indexes must be left as they are.
 *
 * <p>Operations that return {@code boolean} may refuse: the parser then rewinds to the start of
 * that operation and stops, and the same operation is decoded again on the next
 * {@link NatsParser#parse} call (used for backpressure when the broker is full).
 */
public interface ProtocolHandler {
    /**
     * {@code CONNECT <json>}: the raw JSON object text.
     *
     * @return {@code false} to stop here and get the same CONNECT again later (an authentication in
     *         progress)
     */
    boolean onConnect(String json);

    /**
     * {@code PUB <subject> [reply-to] <#bytes>} and its payload.
     *
     * @param replyTo {@code null} when absent
     * @param in      the input; the payload is {@code in[payloadAt, payloadAt + payloadLength)}
     * @return {@code false} to refuse for now (the parser rewinds and stops)
     */
    boolean onPub(String subject, String replyTo, ByteBuf in, int payloadAt, int payloadLength);

    /**
     * {@code HPUB <subject> [reply-to] <#header bytes> <#total bytes>}: the header block
     * ({@code NATS/1.0...\r\n\r\n}, as sent) and the payload right after it.
     *
     * @param in the input; the header block is {@code in[headersAt, headersAt + headersLength)},
     *           the payload the {@code payloadLength} bytes that follow
     * @return {@code false} to refuse for now (the parser rewinds and stops)
     */
    boolean onHpub(String subject, String replyTo, ByteBuf in, int headersAt, int headersLength, int payloadLength);

    /** {@code SUB <subject> [queue group] <sid>}; {@code queueGroup} is {@code null} when absent. */
    void onSub(String subject, String queueGroup, String sid);

    /** {@code UNSUB <sid> [max_msgs]}; {@code maxMessages} is -1 when absent. */
    void onUnsub(String sid, long maxMessages);

    /** {@code PING}. */
    void onPing();

    /** {@code PONG}. */
    void onPong();

    /**
     * A protocol error. After an error whose {@link ProtocolError#closes()} is true the parser
     * has stopped and must not be fed again; otherwise it skipped the bad operation and goes on.
     *
     * @param detail what exactly was wrong, for logs (not sent to the client)
     */
    void onError(ProtocolError error, String detail);
}
