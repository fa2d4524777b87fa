package io.ringbus.jetstream.internal.consumer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A delivery of a {@code headers_only} consumer, as nats-server 2.9 writes it: the message's header
 * block (or a bare {@code NATS/1.0} line) with {@code Nats-Msg-Size: <payload bytes>} appended, and
 * no payload (what KV's {@code keys()} reads).
 */
final class HeadersOnly {
    private static final byte[] STATUS_LINE = "NATS/1.0\r\n".getBytes(StandardCharsets.US_ASCII);

    private HeadersOnly() {
    }

    /**
     * @param block       the stored header block ending in an empty line, or null
     * @param payloadSize the stored payload's length
     * @return the block to deliver
     */
    static byte[] block(byte[] block, int payloadSize) {
        byte[] head = block == null || block.length < 2 ? STATUS_LINE : Arrays.copyOf(block, block.length - 2);
        byte[] size = ("Nats-Msg-Size: " + payloadSize + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(head, head.length + size.length);
        System.arraycopy(size, 0, out, head.length, size.length);
        return out;
    }
}
