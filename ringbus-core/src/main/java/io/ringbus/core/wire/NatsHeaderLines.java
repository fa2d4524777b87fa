package io.ringbus.core.wire;

/**
 * Finds a header's values in a NATS header block without allocating, for header filters on
 * messages that arrived over the NATS protocol (whose {@code Headers} would otherwise parse the
 * whole block into a map on first use) and for {@code Headers#first} itself. Only ASCII blocks are read here ({@link #isAscii}); the
 * lines are read exactly as {@code Headers} reads them: the first line (the version line) is
 * skipped, lines end at CRLF, a line's name is what precedes its first {@code ':'} and its value
 * what follows, both trimmed of characters up to the space; a line without a name, with a space
 * or control character in its name, or with a lone CR or LF in its value is skipped.
 *
 * <p>A value is returned as a packed range, {@code (start << 32) | end}, or -1 when there is none.
 *
 * <p>Threading: static and stateless; the block is only read.
 */
public final class NatsHeaderLines {
    private NatsHeaderLines() {
    }

    /**
     * @param block a header block
     * @return whether every byte is ASCII (so that bytes are the chars {@code Headers} decodes)
     */
    public static boolean isAscii(byte[] block) {
        for (byte b : block) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param name a policy's header name
     * @return its bytes when it is a name a header can have and ASCII, else {@code null}: no
     *         header has it
     */
    public static byte[] asciiName(String name) {
        byte[] bytes = new byte[name.length()];
        for (int i = 0; i < bytes.length; i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c == ':' || c >= 127) {
                return null;
            }
            bytes[i] = (byte) c;
        }
        return bytes.length == 0 ? null : bytes;
    }

    /**
     * @param block an ASCII header block
     * @param name  the header name's bytes
     * @return the first value of {@code name}, packed, or -1
     */
    public static long first(byte[] block, byte[] name) {
        return next(block, lineEnd(block, 0) + 2, name);
    }

    /**
     * @param block    an ASCII header block
     * @param previous a value that {@link #first} or this method returned
     * @param name     the header name's bytes
     * @return the next value of {@code name} after {@code previous}, packed, or -1
     */
    public static long next(byte[] block, long previous, byte[] name) {
        return next(block, lineEnd(block, end(previous)) + 2, name);
    }

    /**
     * @param block an ASCII header block
     * @return whether some line is a header that {@code Headers} would read (a delivery asks whether a
     *         stored message has headers: answered without parsing them)
     */
    public static boolean hasHeader(byte[] block) {
        int line = lineEnd(block, 0) + 2;
        while (line < block.length) {
            int end = lineEnd(block, line);
            if (isHeader(block, line, end)) {
                return true;
            }
            line = end + 2;
        }
        return false;
    }

    private static boolean isHeader(byte[] block, int start, int end) {
        int colon = start;
        while (colon < end && block[colon] != ':') {
            colon++;
        }
        if (colon == end || colon == start) {
            return false;
        }
        int nameStart = trimStart(block, start, colon);
        int nameEnd = trimEnd(block, nameStart, colon);
        if (nameEnd == nameStart) {
            return false;
        }
        for (int i = nameStart; i < nameEnd; i++) {
            if (block[i] <= ' ' || block[i] == 127) {
                return false;
            }
        }
        int valueStart = trimStart(block, colon + 1, end);
        int valueEnd = trimEnd(block, valueStart, end);
        for (int i = valueStart; i < valueEnd; i++) {
            if (block[i] == '\r' || block[i] == '\n') {
                return false;
            }
        }
        return true;
    }

    /** @return the start of a packed value */
    public static int start(long value) {
        return (int) (value >>> 32);
    }

    /** @return the end of a packed value */
    public static int end(long value) {
        return (int) value;
    }

    private static long next(byte[] block, int from, byte[] name) {
        int line = from;
        while (line < block.length) {
            int end = lineEnd(block, line);
            long value = valueIfNamed(block, line, end, name);
            if (value >= 0) {
                return value;
            }
            line = end + 2;
        }
        return -1;
    }

    /** @return the index of the CRLF that ends the line holding {@code from}, or the block's length */
    private static int lineEnd(byte[] block, int from) {
        for (int i = from; i < block.length - 1; i++) {
            if (block[i] == '\r' && block[i + 1] == '\n') {
                return i;
            }
        }
        return block.length;
    }

    private static long valueIfNamed(byte[] block, int start, int end, byte[] name) {
        int colon = start;
        while (colon < end && block[colon] != ':') {
            colon++;
        }
        if (colon == end || colon == start) {
            return -1;
        }
        int nameStart = trimStart(block, start, colon);
        int nameEnd = trimEnd(block, nameStart, colon);
        if (nameEnd - nameStart != name.length) {
            return -1;
        }
        for (int i = 0; i < name.length; i++) {
            if (block[nameStart + i] != name[i]) {
                return -1;
            }
        }
        int valueStart = trimStart(block, colon + 1, end);
        int valueEnd = trimEnd(block, valueStart, end);
        for (int i = valueStart; i < valueEnd; i++) {
            if (block[i] == '\r' || block[i] == '\n') {
                return -1;
            }
        }
        return ((long) valueStart << 32) | valueEnd;
    }

    private static int trimStart(byte[] block, int from, int to) {
        int i = from;
        while (i < to && block[i] <= ' ') {
            i++;
        }
        return i;
    }

    private static int trimEnd(byte[] block, int from, int to) {
        int i = to;
        while (i > from && block[i - 1] <= ' ') {
            i--;
        }
        return i;
    }
}
