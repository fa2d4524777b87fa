package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.ringbus.core.Headers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;

/**
 * The NATS header block of an HPUB, as it arrives:
 * {@code NATS/1.0[ status]\r\n(Name: value\r\n)*\r\n}. (The block the server writes is encoded
 * by {@link Outbound#encodeHeaders}.)
 */
final class HeaderBlock {
    private static final Logger LOG = LoggerFactory.getLogger(HeaderBlock.class);

    private HeaderBlock() {
    }

    /** Reads a header block; skips lines that are not valid headers. */
    static Headers parse(ByteBuf block) {
        String text = block.toString(StandardCharsets.UTF_8);
        String[] lines = text.split("\r\n");
        Headers.Builder builder = Headers.builder();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = lines[i].substring(0, colon).trim();
            String value = lines[i].substring(colon + 1).trim();
            try {
                builder.add(name, value);
            } catch (IllegalArgumentException badHeader) {
                LOG.debug("skipping header line '{}': {}", lines[i], badHeader.getMessage());
            }
        }
        return builder.build();
    }
}
