package io.ringbus.server.internal;

import io.ringbus.core.Headers;
import io.ringbus.core.wire.NatsHeaderBlock;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** The status messages the server makes itself on the wire (no-responders' 503); header blocks are {@link NatsHeaderBlock}'s. */
final class StatusMessage {
    private StatusMessage() {
    }

    /**
     * Encodes a status message without payload, such as no-responders' 503:
     * {@code HMSG <subject> <sid> <#header bytes> <#header bytes>\r\nNATS/1.0 <status>\r\n\r\n\r\n}.
     * Rare (one per request nobody answers), so it is built on its own, not in {@link Outbound}'s encoder.
     *
     * @param subject the subject it is sent to (the request's reply subject)
     * @param sid     the subscription id it is delivered on
     * @param status  the status code, such as {@code "503"}
     * @return the whole message, to hand to {@link Outbound#enqueueControl}
     */
    static byte[] encode(String subject, byte[] sid, String status) {
        byte[] block = NatsHeaderBlock.encode(Headers.EMPTY, status);
        byte[] to = SubjectCodec.encode(subject);
        String sizes = " " + block.length + " " + block.length + "\r\n";
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + to.length + sid.length);
        out.writeBytes("HMSG ".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(to);
        out.write(' ');
        out.writeBytes(sid);
        out.writeBytes(sizes.getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(block);
        out.write('\r');
        out.write('\n');
        return out.toByteArray();
    }
}
