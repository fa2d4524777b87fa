package io.ringbus.core.internal.store;

import io.ringbus.core.Documents;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The layout of a document file ({@link LocalDocuments}), written once here. A file is a header,
 * then records, then zeros up to its preallocated size:
 *
 * <pre>
 * file    = MAGIC (8 bytes: FF 'R' 'B' 'D' 'O' 'C' 00 01) record* zero*
 * record  = length (int32, content bytes, 0 to {@link Documents#MAX_BYTES})
 *           crc    (int32, CRC32C of length, sequence and content)
 *           sequence (int64, the first record's at least 1, each next one more)
 *           content (length bytes)
 * </pre>
 *
 * All numbers big-endian. The document's content is the last valid record's: a scan from the
 * header stops at the first record whose length overruns the file, whose sequence is not the next,
 * or whose crc does not match (the zeros after the last record, or a record torn by a crash), so a
 * torn last record leaves the previous one. A file not starting with {@link #MAGIC} was written
 * before this layout: its whole content is the document (0xFF never starts UTF-8 text, which every
 * such document of ours is).
 *
 * <p>Stateless; thread-safe.
 */
final class DocumentRecords {
    /** The first bytes of a file in this layout. */
    static final byte[] MAGIC = {(byte) 0xFF, 'R', 'B', 'D', 'O', 'C', 0, 1};
    /** Bytes of {@link #MAGIC}. */
    static final int HEADER_BYTES = MAGIC.length;
    /** Bytes of a record before its content: length, crc, sequence. */
    static final int RECORD_HEADER_BYTES = 16;
    /** The largest region (the bytes after the header): one largest record and an empty record header. */
    static final int MAX_REGION_BYTES = 2 * RECORD_HEADER_BYTES + Documents.MAX_BYTES;
    /** The largest document file this layout writes (and the most a read takes). */
    static final int MAX_FILE_BYTES = HEADER_BYTES + MAX_REGION_BYTES;

    private DocumentRecords() {
    }

    /**
     * @param file a document file's bytes
     * @return whether it is in this layout (else it predates it: the whole file is the content)
     */
    static boolean hasMagic(byte[] file) {
        return file.length >= HEADER_BYTES && Arrays.equals(file, 0, HEADER_BYTES, MAGIC, 0, HEADER_BYTES);
    }

    /**
     * Puts one record at {@code buffer}'s position, advancing it.
     *
     * @param buffer   a heap buffer with room for {@link #RECORD_HEADER_BYTES} + content
     * @param sequence the record's sequence, at least 1
     * @param content  the document
     */
    static void put(ByteBuffer buffer, long sequence, byte[] content) {
        int start = buffer.position();
        buffer.putInt(content.length).putInt(0).putLong(sequence).put(content);
        buffer.putInt(start + 4, crc(buffer.array(), buffer.arrayOffset() + start, content.length));
    }

    private static int crc(byte[] bytes, int record, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, record, 4);
        crc.update(bytes, record + 8, 8 + length);
        return (int) crc.getValue();
    }

    /**
     * Scans the records of a file in this layout.
     *
     * @param file its bytes ({@link #hasMagic})
     * @return the last valid record, or null when there is none
     */
    static Last last(byte[] file) {
        Last last = null;
        ByteBuffer buffer = ByteBuffer.wrap(file);
        int at = HEADER_BYTES;
        while (at + RECORD_HEADER_BYTES <= file.length) {
            int length = buffer.getInt(at);
            long sequence = buffer.getLong(at + 8);
            if (length < 0 || length > file.length - at - RECORD_HEADER_BYTES
                    || sequence < 1 || (last != null && sequence != last.sequence + 1)
                    || buffer.getInt(at + 4) != crc(file, at, length)) {
                break;
            }
            last = new Last(at + RECORD_HEADER_BYTES, length, sequence);
            at += RECORD_HEADER_BYTES + length;
        }
        return last;
    }

    /**
     * The last valid record of a file.
     *
     * @param offset   where its content starts in the file
     * @param length   its content's bytes
     * @param sequence its sequence
     */
    record Last(int offset, int length, long sequence) {
        /** @return the offset just after the record, where the next one goes */
        int end() {
            return offset + length;
        }
    }
}
