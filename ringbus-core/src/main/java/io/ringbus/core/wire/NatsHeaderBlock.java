package io.ringbus.core.wire;

import io.ringbus.core.Headers;
import io.ringbus.core.internal.HeadersAccess;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The NATS header block codec: the block an {@code HPUB} or {@code HMSG} carries before its
 * payload.
 *
 * <pre>
 * block       = version-line *header-line CRLF
 * version-line = "NATS/1.0" [SP status [SP description]] CRLF     ; VERSION
 * status      = 3DIGIT                                           ; 503 no responders, 100 heartbeat...
 * header-line = name ":" *SP value CRLF
 * name        = 1*(%x21-39 / %x3B-7E)                            ; printable ASCII but ':'
 * value       = *(any octet but CR and LF)                       ; UTF-8
 * </pre>
 *
 * <p>Two readings. {@link #wrap} is the server's: the block is kept exactly as received (status
 * line, spacing, empty blocks, lines that are not headers) and forwarded byte for byte, as
 * nats-server forwards it; its names and values are read on first use, skipping the lines that are
 * not headers as NATS clients do ({@link NatsHeaderLines} reads the same lines without allocating).
 * {@link #parse} is the strict one: a block that does not follow the grammar is refused, with a
 * message naming the line.
 *
 * <p>Threading: static and stateless; blocks are only read, and must not be modified once wrapped.
 */
public final class NatsHeaderBlock {
    /** The version every block starts with. */
    public static final String VERSION = "NATS/1.0";
    /** The longest part of a refused block quoted in an exception's message. */
    static final int MAX_QUOTED = 64;
    private static final byte[] VERSION_LINE = (VERSION + "\r\n").getBytes(StandardCharsets.US_ASCII);
    private static final HeadersAccess.Factory HEADERS = HeadersAccess.factory();

    private NatsHeaderBlock() {
    }

    /**
     * Headers over a block as a NATS client sent it, kept as is whatever it holds.
     *
     * @param block the header block, not copied: the caller must not modify it afterwards
     * @return the headers; {@link Headers#natsBlock()} is {@code block}
     * @throws IllegalArgumentException when the block is null
     */
    public static Headers wrap(byte[] block) {
        if (block == null) {
            throw new IllegalArgumentException("a NATS header block must not be null");
        }
        return HEADERS.wrap(block);
    }

    /**
     * Headers over a block that follows the grammar above, kept as is.
     *
     * @param block the header block, not copied: the caller must not modify it afterwards
     * @return the headers; {@link Headers#natsBlock()} is {@code block}
     * @throws IllegalArgumentException naming the block or line that breaks the grammar
     */
    public static Headers parse(byte[] block) {
        if (block == null) {
            throw new IllegalArgumentException("a NATS header block must not be null");
        }
        String text = new String(block, StandardCharsets.UTF_8);
        if (!text.endsWith("\r\n\r\n")) {
            throw refused("does not end with an empty line", text);
        }
        int end = text.indexOf("\r\n");
        checkVersionLine(text.substring(0, end), text);
        for (int start = end + 2; start < text.length() - 2; start = end + 2) {
            end = text.indexOf("\r\n", start);
            checkHeaderLine(text.substring(start, end), text);
        }
        return HEADERS.wrap(block);
    }

    private static void checkVersionLine(String line, String block) {
        if (!line.startsWith(VERSION)) {
            throw refused("does not start with " + VERSION + ": '" + quote(line) + "'", block);
        }
        String rest = line.substring(VERSION.length());
        if (rest.isEmpty()) {
            return;
        }
        if (rest.length() < 4 || rest.charAt(0) != ' ' || !isDigits(rest.substring(1, 4))
                || rest.length() > 4 && rest.charAt(4) != ' ') {
            throw refused("has a status that is not 3 digits: '" + quote(line) + "'", block);
        }
        if (rest.indexOf('\r') >= 0 || rest.indexOf('\n') >= 0) {
            throw refused("has a lone CR or LF in its version line: '" + quote(line) + "'", block);
        }
    }

    private static void checkHeaderLine(String line, String block) {
        int colon = line.indexOf(':');
        if (colon <= 0) {
            throw refused("has a line that is not 'Name: value': '" + quote(line) + "'", block);
        }
        for (int i = 0; i < colon; i++) {
            char c = line.charAt(i);
            if (c <= ' ' || c >= 127) {
                throw refused("has a header name with a space or control character: '" + quote(line) + "'", block);
            }
        }
        if (line.indexOf('\r') >= 0 || line.indexOf('\n') >= 0) {
            throw refused("has a lone CR or LF in a header line: '" + quote(line) + "'", block);
        }
    }

    private static boolean isDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static IllegalArgumentException refused(String why, String block) {
        return new IllegalArgumentException("NATS header block " + why + " (block '" + quote(block) + "')");
    }

    /** @return {@code text} with CR and LF shown as {@code \r} and {@code \n}, cut at {@link #MAX_QUOTED} characters */
    private static String quote(String text) {
        String cut = text.length() > MAX_QUOTED ? text.substring(0, MAX_QUOTED) + "..." : text;
        return cut.replace("\r", "\\r").replace("\n", "\\n");
    }

    /**
     * @param headers headers
     * @return the block received when the headers came from one, else the headers encoded as
     *         {@code NATS/1.0\r\n(Name: value\r\n)*\r\n} (UTF-8); the caller must not modify it
     */
    public static byte[] encode(Headers headers) {
        byte[] received = headers.natsBlock();
        return received != null ? received : encode(headers, null);
    }

    /**
     * Encodes headers with a status, whatever block they came from.
     *
     * @param headers headers
     * @param status  what follows the version on its line, such as {@code "503"} or
     *                {@code "409 Consumer Deleted"}, or {@code null} for none
     * @return {@code NATS/1.0[ status]\r\n(Name: value\r\n)*\r\n} (UTF-8)
     */
    public static byte[] encode(Headers headers, String status) {
        StringBuilder block = new StringBuilder(64).append(VERSION);
        if (status != null) {
            block.append(' ').append(status);
        }
        block.append("\r\n");
        for (String name : headers.names()) {
            for (String value : headers.all(name)) {
                block.append(name).append(": ").append(value).append("\r\n");
            }
        }
        return block.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A status message's block (no-responders, heartbeat, pull request ends).
     *
     * @param status          what follows the version, such as {@code "404 No Messages"}
     * @param namesAndValues  name, value, name, value, ... written in this order
     * @return {@code NATS/1.0 status\r\n(Name: value\r\n)*\r\n} (UTF-8)
     */
    public static byte[] statusBlock(String status, String... namesAndValues) {
        StringBuilder block = new StringBuilder(64).append(VERSION).append(' ').append(status).append("\r\n");
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            block.append(namesAndValues[i]).append(": ").append(namesAndValues[i + 1]).append("\r\n");
        }
        return block.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Appends headers to a block, keeping its bytes (status line, spacing) as they are: the block's
     * last two bytes (its closing CRLF) are replaced by the new lines and a closing CRLF.
     *
     * @param block          a block ending in an empty line, or {@code null} (then a bare version line)
     * @param namesAndValues name, value, name, value, ... appended in this order
     * @return a new block (UTF-8)
     */
    public static byte[] append(byte[] block, String... namesAndValues) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(
                (block == null ? VERSION_LINE.length : block.length) + 32 * namesAndValues.length);
        if (block == null || block.length < 2) {
            out.writeBytes(VERSION_LINE);
        } else {
            out.write(block, 0, block.length - 2);
        }
        StringBuilder lines = new StringBuilder(32 * namesAndValues.length);
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            lines.append(namesAndValues[i]).append(": ").append(namesAndValues[i + 1]).append("\r\n");
        }
        out.writeBytes(lines.append("\r\n").toString().getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /**
     * @param block a block, or {@code null}
     * @return the status of its version line ({@code "503"} of {@code NATS/1.0 503 No Responders}),
     *         or {@code null} when it has none
     */
    public static String status(byte[] block) {
        if (block == null || block.length < VERSION.length()
                || !new String(block, 0, VERSION.length(), StandardCharsets.ISO_8859_1).equals(VERSION)) {
            return null;
        }
        int end = VERSION.length();
        while (end < block.length && block[end] != '\r' && block[end] != '\n') {
            end++;
        }
        String rest = new String(block, VERSION.length(), end - VERSION.length(), StandardCharsets.UTF_8).trim();
        if (rest.isEmpty()) {
            return null;
        }
        int space = rest.indexOf(' ');
        return space < 0 ? rest : rest.substring(0, space);
    }

    /**
     * Reads a block's names and values leniently, as NATS clients do: lines end with CRLF (a lone
     * CR or LF stays inside its line and makes it invalid), the first is the version line, a line's
     * name is what precedes its first {@code ':'} and its value what follows, both trimmed; a line
     * that is not a valid header is skipped.
     *
     * @param block a block
     * @return headers built from its valid lines, without the block
     */
    public static Headers read(byte[] block) {
        String text = new String(block, StandardCharsets.UTF_8);
        Headers.Builder builder = Headers.builder();
        int start = text.indexOf("\r\n");
        while (start >= 0) {
            start += 2;
            int end = text.indexOf("\r\n", start);
            String line = text.substring(start, end < 0 ? text.length() : end);
            int colon = line.indexOf(':');
            if (colon > 0) {
                try {
                    builder.add(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
                } catch (IllegalArgumentException badHeader) {
                    // Not a valid header line: skipped, as NATS clients skip it; the block keeps it.
                }
            }
            start = end;
        }
        return builder.build();
    }
}
