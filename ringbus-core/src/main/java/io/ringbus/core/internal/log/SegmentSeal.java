package io.ringbus.core.internal.log;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The seal at the end of a rolled segment's index file: what recovery needs to know about the
 * segment without reading it. A <em>forced</em> seal is written only after the segment's log file
 * was forced, and the index forced after it, so one that survived a power cut vouches for the log up
 * to {@link #size()}; an unforced one (the {@code OS} policy) is checked against the log's last
 * record. Big-endian, {@link #BYTES} bytes, right after the index entries (see
 * {@code docs/storage.md}):
 *
 * <pre>
 * offset  size  field
 *      0     8  magic          {@link #MAGIC}: negative, so a loader reading it as an entry's sequence stops there
 *      8     8  size           bytes of the log file, whole frames only
 *     16     8  lastSequence   of the segment's last record
 *     24     8  lastTimestamp  of the segment's last record
 *     32     8  lastPosition   where the last record's frame starts
 *     40     8  headerRecords  records that carry headers, -1 when not known
 *     48     8  entryCount     index entries before the seal
 *     56     4  flags          bit 0: forced (the log forced before, the index after)
 *     60     4  entriesCrc     CRC32C of the entries' bytes, checked when the index is first used
 *     64     4  sealCrc        CRC32C of bytes 0 .. 64
 * </pre>
 *
 * @param size          bytes of the log file
 * @param lastSequence  the last record's sequence
 * @param lastTimestamp the last record's timestamp
 * @param lastPosition  where the last record's frame starts
 * @param headerRecords records with headers, -1 when not known
 * @param entryCount    index entries before the seal
 * @param forced        whether the log was forced before the seal was written, and the index after
 * @param entriesCrc    CRC32C of the entries' bytes
 */
record SegmentSeal(long size, long lastSequence, long lastTimestamp, long lastPosition, long headerRecords,
                   long entryCount, boolean forced, int entriesCrc) {
    /** Bytes of a seal. */
    static final int BYTES = 68;
    /** The first field: "RBLGSEA1" with the top bit set. */
    static final long MAGIC = 0xD2424C4753454131L;
    private static final int FORCED = 1;
    private static final int SEAL_CRC_OFFSET = 64;

    /** @return this seal, marked forced */
    SegmentSeal asForced() {
        return new SegmentSeal(size, lastSequence, lastTimestamp, lastPosition, headerRecords, entryCount, true,
                entriesCrc);
    }

    /** Writes the seal into {@code out} from its position, advancing it by {@link #BYTES}. */
    void encode(ByteBuffer out, CRC32C crc) {
        int start = out.position();
        out.putLong(MAGIC).putLong(size).putLong(lastSequence).putLong(lastTimestamp).putLong(lastPosition)
                .putLong(headerRecords).putLong(entryCount).putInt(forced ? FORCED : 0).putInt(entriesCrc);
        out.putInt(crcOf(out, start, crc));
    }

    /**
     * Reads a seal from {@code in}'s next {@link #BYTES} bytes.
     *
     * @return the seal, or null when the bytes are not a whole, valid one
     */
    static SegmentSeal decode(ByteBuffer in, CRC32C crc) {
        int start = in.position();
        if (in.remaining() < BYTES || in.getLong(start) != MAGIC
                || in.getInt(start + SEAL_CRC_OFFSET) != crcOf(in, start, crc)) {
            return null;
        }
        SegmentSeal seal = new SegmentSeal(in.getLong(start + 8), in.getLong(start + 16), in.getLong(start + 24),
                in.getLong(start + 32), in.getLong(start + 40), in.getLong(start + 48),
                (in.getInt(start + 56) & FORCED) != 0, in.getInt(start + 60));
        in.position(start + BYTES);
        boolean sane = seal.size > 0 && seal.lastPosition >= 0 && seal.lastPosition < seal.size
                && seal.lastSequence > 0 && seal.entryCount > 0 && seal.headerRecords >= -1;
        return sane ? seal : null;
    }

    private static int crcOf(ByteBuffer buffer, int start, CRC32C crc) {
        crc.reset();
        crc.update(buffer.duplicate().limit(start + SEAL_CRC_OFFSET).position(start));
        return (int) crc.getValue();
    }
}
