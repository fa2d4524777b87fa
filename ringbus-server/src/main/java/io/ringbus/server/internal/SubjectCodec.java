package io.ringbus.server.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Subjects (and sids, queue groups, reply subjects) are byte strings on the wire; the broker
 * holds them as Strings. This codec maps bytes to Strings one to one, so two different byte
 * strings never become the same subject (a lossy UTF-8 decode would turn every invalid byte
 * into U+FFFD and make {@code a.\xfe} and {@code a.\xff} alias).
 *
 * <p>Valid UTF-8 decodes as UTF-8 (so in-process subscribers see the subject a UTF-8 client
 * meant). A token string that is not valid UTF-8 decodes byte by byte: ASCII bytes as
 * themselves, every byte >= 0x80 as the lone surrogate {@code U+DC00 + byte} (the
 * "surrogateescape" scheme), which valid UTF-8 can never produce. {@link #encode} inverts both.
 */
final class SubjectCodec {
    private static final char ESCAPE_BASE = 0xDC00;

    private SubjectCodec() {
    }

    /** @return the String for {@code bytes[from, to)} */
    static String decode(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] < 0) {
                return decodeNonAscii(bytes, from, to);
            }
        }
        return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private static String decodeNonAscii(byte[] bytes, int from, int to) {
        CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return strict.decode(ByteBuffer.wrap(bytes, from, to - from)).toString();
        } catch (CharacterCodingException notUtf8) {
            char[] chars = new char[to - from];
            for (int i = from; i < to; i++) {
                int b = bytes[i] & 0xFF;
                chars[i - from] = b < 0x80 ? (char) b : (char) (ESCAPE_BASE + b);
            }
            return new String(chars);
        }
    }

    /** @return the bytes {@link #decode} made {@code s} from */
    static byte[] encode(String s) {
        int length = s.length();
        boolean ascii = true;
        for (int i = 0; i < length && ascii; i++) {
            ascii = s.charAt(i) < 0x80;
        }
        if (ascii) {
            return s.getBytes(StandardCharsets.ISO_8859_1);
        }
        if (isEscaped(s)) {
            byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++) {
                char c = s.charAt(i);
                bytes[i] = (byte) (c < 0x80 ? c : c - ESCAPE_BASE);
            }
            return bytes;
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** @return the most bytes {@link #encode} can make of {@code s} */
    static int maxEncodedLength(String s) {
        return 3 * s.length();
    }

    /**
     * Puts {@link #encode}'s bytes of {@code s} at {@code at}; the array has room for
     * {@link #maxEncodedLength}. ASCII (nearly every subject) is copied without allocating.
     *
     * @return the index after them
     */
    static int encodeInto(byte[] to, int at, String s) {
        int length = s.length();
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                byte[] bytes = encode(s);
                System.arraycopy(bytes, 0, to, at, bytes.length);
                return at + bytes.length;
            }
            to[at + i] = (byte) c;
        }
        return at + length;
    }

    /** A decoded non-UTF-8 string: every non-ASCII char is an escaped byte. */
    private static boolean isEscaped(String s) {
        boolean any = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                if (c < ESCAPE_BASE + 0x80 || c > ESCAPE_BASE + 0xFF) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }
}
