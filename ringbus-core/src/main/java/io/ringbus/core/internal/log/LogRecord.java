package io.ringbus.core.internal.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A view of the record a {@link LogReader} is on: valid until the reader's next call, reused for
 * every record. {@link #copy()} keeps one.
 */
public final class LogRecord {
    private ByteBuffer buffer;
    private int offset;
    private int subjectBytes;
    private int headersAt;
    private int headerBytes;
    private int payloadAt;
    private int payloadBytes;

    LogRecord() {
    }

    /** Points this view at the valid frame at {@code offset} of {@code frames} (a heap buffer). */
    void wrap(ByteBuffer frames, int frameOffset) {
        this.buffer = frames;
        this.offset = frameOffset;
        this.subjectBytes = frames.getShort(frameOffset + RecordFrame.SUBJECT_LENGTH_OFFSET) & 0xFFFF;
        this.headersAt = frameOffset + RecordFrame.SUBJECT_OFFSET + subjectBytes + 4;
        this.headerBytes = frames.getInt(headersAt - 4);
        this.payloadAt = headersAt + headerBytes + 4;
        this.payloadBytes = frames.getInt(payloadAt - 4);
    }

    /** @return the record's sequence */
    public long sequence() {
        return buffer.getLong(offset + RecordFrame.SEQUENCE_OFFSET);
    }

    /** @return when the record was appended, epoch millis (never decreasing along the log) */
    public long timestampMillis() {
        return buffer.getLong(offset + RecordFrame.TIMESTAMP_OFFSET);
    }

    /** @return the subject, decoded (allocates) */
    public String subject() {
        return new String(buffer.array(), buffer.arrayOffset() + offset + RecordFrame.SUBJECT_OFFSET, subjectBytes,
                StandardCharsets.UTF_8);
    }

    /** @return the payload's length in bytes */
    public int payloadLength() {
        return payloadBytes;
    }

    /** @return the headers' length in bytes */
    public int headersLength() {
        return headerBytes;
    }

    /** @return a copy of the payload */
    public byte[] copyPayload() {
        return copy(payloadAt, payloadBytes);
    }

    /** @return a copy of the headers, empty if none */
    public byte[] copyHeaders() {
        return copy(headersAt, headerBytes);
    }

    /**
     * Copies the payload into {@code destination} without allocating.
     *
     * @param destination where to put it, with at least {@link #payloadLength()} bytes remaining
     */
    public void payloadTo(ByteBuffer destination) {
        destination.put(buffer.array(), buffer.arrayOffset() + payloadAt, payloadBytes);
    }

    /** @return this record, copied */
    public StoredRecord copy() {
        return new StoredRecord(sequence(), timestampMillis(), subject(), copyHeaders(), copyPayload());
    }

    private byte[] copy(int at, int length) {
        byte[] bytes = new byte[length];
        System.arraycopy(buffer.array(), buffer.arrayOffset() + at, bytes, 0, length);
        return bytes;
    }

    @Override
    public String toString() {
        return "LogRecord[sequence=" + sequence() + ", subject=" + subject() + ", payload=" + payloadBytes + " B]";
    }
}
