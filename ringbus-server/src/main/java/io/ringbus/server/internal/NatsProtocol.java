package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;

/**
 * The fixed lines the server writes to a NATS client, each spelled once here. The rest of the
 * wire lives beside it, each in one place: the grammar the server reads and its limits in
 * {@link NatsParser} (the limits the server runs it with are
 * {@link io.ringbus.server.ServerConfig#MAX_CONTROL_LINE} and
 * {@link io.ringbus.server.ServerConfig#DEFAULT_MAX_PAYLOAD}), the {@code MSG} / {@code HMSG} and
 * header-block layouts in {@link Outbound}, the {@code INFO} line in {@link ServerContext}.
 *
 * <pre>
 * ping = "PING" CRLF          ; keep-alive
 * pong = "PONG" CRLF          ; answer to a client's PING
 * ok   = "+OK" CRLF           ; verbose mode's acknowledgement
 * err  = "-ERR '" text "'" CRLF
 * </pre>
 *
 * <p>The arrays and buffers are shared by every connection and never modified: write a buffer
 * with {@code duplicate()}, hand an array to {@link Outbound#enqueueControl}, which copies it.
 * Stateless; any thread.
 */
final class NatsProtocol {
    /** {@code PING\r\n}. Never modified. */
    static final byte[] PING = ascii("PING\r\n");
    /** {@code PONG\r\n}. Never modified. */
    static final byte[] PONG = ascii("PONG\r\n");
    /** {@code +OK\r\n}. Never modified. */
    static final byte[] OK = ascii("+OK\r\n");
    /** {@link #PING} in a read-only direct buffer that is never released; write a {@code duplicate()}. */
    static final ByteBuf PING_BUFFER = sharedBuffer(PING);
    /** {@link #PONG} in a read-only direct buffer that is never released; write a {@code duplicate()}. */
    static final ByteBuf PONG_BUFFER = sharedBuffer(PONG);

    private NatsProtocol() {
    }

    /**
     * Encodes an error line as nats-server writes it.
     *
     * @param text the error text, for example {@code Parser Error}
     * @return {@code -ERR '<text>'\r\n} in UTF-8
     */
    static byte[] err(String text) {
        return ("-ERR '" + text + "'\r\n").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] ascii(String line) {
        return line.getBytes(StandardCharsets.US_ASCII);
    }

    private static ByteBuf sharedBuffer(byte[] line) {
        return Unpooled.unreleasableBuffer(Unpooled.directBuffer(line.length).writeBytes(line)).asReadOnly();
    }
}
