package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.wire.NatsHeaderLines;

/**
 * Reads a message's priority ({@link Message#PRIORITY_HEADER}) without allocating: from the map of
 * in-process headers, or in place from an ASCII NATS header block (which would otherwise be parsed
 * into a map for one header). Lives beside {@link NatsHeaderLines}, whose reading it shares.
 *
 * <p>Threading: static and stateless.
 */
public final class MessagePriority {
    private static final byte[] NAME = NatsHeaderLines.asciiName(Message.PRIORITY_HEADER);

    private MessagePriority() {
    }

    /**
     * @param headers the headers, possibly {@code null}
     * @return 0..9, or {@link Message#DEFAULT_PRIORITY} without a one-digit priority header
     */
    public static int of(Headers headers) {
        if (headers == null || headers == Headers.EMPTY) {
            return Message.DEFAULT_PRIORITY;
        }
        byte[] block = headers.natsBlock();
        if (block != null && NatsHeaderLines.isAscii(block)) {
            long value = NatsHeaderLines.first(block, NAME);
            if (value < 0) {
                return Message.DEFAULT_PRIORITY;
            }
            int start = NatsHeaderLines.start(value);
            return NatsHeaderLines.end(value) - start == 1 ? digit(block[start]) : Message.DEFAULT_PRIORITY;
        }
        String text = headers.first(Message.PRIORITY_HEADER);
        return text != null && text.length() == 1 ? digit(text.charAt(0)) : Message.DEFAULT_PRIORITY;
    }

    private static int digit(int c) {
        return c >= '0' && c <= '9' ? c - '0' : Message.DEFAULT_PRIORITY;
    }
}
