package io.ringbus.core.internal.log;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The on-disk layout of one record, in one place (see {@code docs/storage.md}). Big-endian:
 *
 * <pre>
 * offset  size  field
 *      0     4  magic           0x52424C47 ("RBLG"): lets a scan resynchronize after corruption
 *      4     4  length          n: bytes from sequence to the end of payload (26 + s + h + p)
 *      8     8  sequence        1-based, gap-free as appended
 *     16     8  timestamp       epoch millis, never decreasing within a log
 *     24     2  subject length  s, unsigned
 *     26     s  subject         UTF-8
 *   26+s     4  headers length  h
 *   30+s     h  headers
 * 30+s+h     4  payload length  p
 * 34+s+h     p  payload
 *    8+n     4  CRC32C          over bytes 8 .. 8+n (sequence to the end of payload)
 * </pre>
 *
 * <p>A frame is valid when its magic matches, its length is within bounds and fits the bytes
 * present, its three inner lengths add up to {@code n}, and its CRC matches.
 */
final class RecordFrame {
    /** "RBLG". */
    static final int MAGIC = 0x52424C47;
    /** Offset of the length field. */
    static final int LENGTH_OFFSET = 4;
    /** Offset of the sequence field: the first byte the CRC covers. */
    static final int SEQUENCE_OFFSET = 8;
    /** Offset of the timestamp field. */
    static final int TIMESTAMP_OFFSET = 16;
    /** Offset of the subject length field. */
    static final int SUBJECT_LENGTH_OFFSET = 24;
    /** Offset of the subject bytes. */
    static final int SUBJECT_OFFSET = 26;
    /** The smallest length field: sequence, timestamp and three empty lengths. */
    static final int MIN_LENGTH = 26;
    /** Frame bytes besides the subject, headers and payload. */
    static final int OVERHEAD = MIN_LENGTH + 12;
    /** The largest subject in UTF-8 bytes (an unsigned short). */
    static final int MAX_SUBJECT_BYTES = 0xFFFF;
    /** The largest subject + headers + payload any log accepts or recovery believes: 64 MiB. */
    static final int MAX_RECORD_BYTES = 64 << 20;
    /** {@link #check} result: the bytes present end before the frame does. */
    static final int NEED_MORE = -1;
    /** {@link #check} result: not a valid frame. */
    static final int INVALID = -2;

    private RecordFrame() {
    }

    /** @return the frame size of a record with these part sizes */
    static int frameBytes(int subjectBytes, int headerBytes, int payloadBytes) {
        return OVERHEAD + subjectBytes + headerBytes + payloadBytes;
    }

    /**
     * Encodes a record into {@code frame} from position 0 and flips it, ready to write. Allocates
     * nothing.
     */
    static void encode(ByteBuffer frame, long sequence, long timestamp, String subject, int subjectBytes,
                       byte[] headers, byte[] payload, CRC32C crc) {
        int headerBytes = headers == null ? 0 : headers.length;
        int length = MIN_LENGTH + subjectBytes + headerBytes + payload.length;
        frame.clear();
        frame.putInt(MAGIC).putInt(length).putLong(sequence).putLong(timestamp).putShort((short) subjectBytes);
        putUtf8(frame, subject);
        frame.putInt(headerBytes);
        if (headerBytes > 0) {
            frame.put(headers);
        }
        frame.putInt(payload.length).put(payload);
        int end = SEQUENCE_OFFSET + length;
        frame.position(SEQUENCE_OFFSET).limit(end);
        crc.reset();
        crc.update(frame);
        frame.limit(frame.capacity()).position(end);
        frame.putInt((int) crc.getValue());
        frame.flip();
    }

    /**
     * Checks the frame starting at {@code offset} of a heap buffer whose next {@code available}
     * bytes are present.
     *
     * @return the frame's size in bytes, {@link #NEED_MORE} or {@link #INVALID}
     */
    static int check(ByteBuffer buffer, int offset, int available, CRC32C crc) {
        if (available < SEQUENCE_OFFSET) {
            return NEED_MORE;
        }
        if (buffer.getInt(offset) != MAGIC) {
            return INVALID;
        }
        int length = buffer.getInt(offset + LENGTH_OFFSET);
        if (length < MIN_LENGTH || length > MAX_RECORD_BYTES + MIN_LENGTH) {
            return INVALID;
        }
        int total = length + 12;
        if (total > available) {
            return NEED_MORE;
        }
        int end = offset + SEQUENCE_OFFSET + length;
        int subjectBytes = buffer.getShort(offset + SUBJECT_LENGTH_OFFSET) & 0xFFFF;
        long headersAt = (long) offset + SUBJECT_OFFSET + subjectBytes;
        if (headersAt + 4 > end) {
            return INVALID;
        }
        int headerBytes = buffer.getInt((int) headersAt);
        long payloadAt = headersAt + 4 + headerBytes;
        if (headerBytes < 0 || payloadAt + 4 > end) {
            return INVALID;
        }
        int payloadBytes = buffer.getInt((int) payloadAt);
        if (payloadBytes < 0 || payloadAt + 4 + payloadBytes != end) {
            return INVALID;
        }
        crc.reset();
        crc.update(buffer.array(), buffer.arrayOffset() + offset + SEQUENCE_OFFSET, length);
        if ((int) crc.getValue() != buffer.getInt(end)) {
            return INVALID;
        }
        return total;
    }

    /** @return whether the valid frame at {@code offset} of {@code buffer} carries headers */
    static boolean hasHeaders(ByteBuffer buffer, int offset) {
        int subjectBytes = buffer.getShort(offset + SUBJECT_LENGTH_OFFSET) & 0xFFFF;
        return buffer.getInt(offset + SUBJECT_OFFSET + subjectBytes) > 0;
    }

    /** @return the number of bytes {@link #putUtf8} writes for {@code s} */
    static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++; // an unpaired surrogate is written as '?', as String.getBytes(UTF_8) does
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** Writes {@code s} as UTF-8 without allocating. */
    private static void putUtf8(ByteBuffer out, String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out.put((byte) c);
            } else if (c < 0x800) {
                out.put((byte) (0xC0 | c >> 6)).put((byte) (0x80 | c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                out.put((byte) (0xF0 | cp >> 18)).put((byte) (0x80 | cp >> 12 & 0x3F))
                        .put((byte) (0x80 | cp >> 6 & 0x3F)).put((byte) (0x80 | cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                out.put((byte) '?');
            } else {
                out.put((byte) (0xE0 | c >> 12)).put((byte) (0x80 | c >> 6 & 0x3F)).put((byte) (0x80 | c & 0x3F));
            }
        }
    }
}
