package io.ringbus.core.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * Walks the frames of one segment file through a reusable heap buffer, from a position up to a
 * limit, and resynchronizes past anything that is not a valid frame by scanning for the next
 * {@link RecordFrame#MAGIC} that starts a valid frame with a higher sequence.
 *
 * <p>Used by recovery (which truncates a {@link #TORN} tail) and by readers (which skip what
 * recovery did not see). Not thread-safe: one cursor per reader.
 */
final class FrameCursor {
    /** {@link #next()}: a valid frame is at {@link #frameOffset()} of {@link #buffer()}. */
    static final int FRAME = 1;
    /** {@link #next()}: the limit is reached at a frame boundary. */
    static final int END = 0;
    /** {@link #next()}: from {@link #skippedFrom()} to the limit, no valid frame. */
    static final int TORN = -1;

    private static final int INITIAL_BUFFER_BYTES = 64 * 1024;

    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer = ByteBuffer.allocate(INITIAL_BUFFER_BYTES);
    private FileChannel channel;
    private long bufferStart;
    private int bufferBytes;
    private long position;
    private long limit;
    private long lastSequence;
    private long framePosition;
    private int frameOffset;
    private int frameBytes;
    private long skippedFrom = -1;
    /** Bytes read from files over the cursor's life, across resets. */
    private long bytesRead;

    /** Starts over on {@code channel} at {@code position}; frames must have sequences above {@code after}. */
    void reset(FileChannel channel, long position, long limit, long after) {
        this.channel = channel;
        this.position = position;
        this.limit = limit;
        this.lastSequence = after;
        this.bufferStart = 0;
        this.bufferBytes = 0;
        this.skippedFrom = -1;
    }

    /** Moves the limit (a live segment grows). */
    void limit(long value) {
        this.limit = value;
    }

    /**
     * Advances to the next valid frame.
     *
     * @return {@link #FRAME}, {@link #END} or {@link #TORN}; {@link #skippedFrom()} is {@code >= 0}
     *         when invalid bytes were skipped to get there
     * @throws IOException from the channel, {@link java.nio.channels.ClosedChannelException} when
     *         retention deleted the segment
     */
    int next() throws IOException {
        skippedFrom = -1;
        while (position < limit) {
            int size = frameAt(position);
            if (size > 0) {
                long sequence = buffer.getLong(frameOffset + RecordFrame.SEQUENCE_OFFSET);
                if (sequence > lastSequence) {
                    lastSequence = sequence;
                    framePosition = position;
                    frameBytes = size;
                    position += size;
                    return FRAME;
                }
            }
            if (skippedFrom < 0) {
                skippedFrom = position;
            }
            position++;
        }
        return skippedFrom < 0 ? END : TORN;
    }

    /** @return the frame size at {@code at} (its first byte at {@link #frameOffset}), or a negative */
    private int frameAt(long at) throws IOException {
        int available = fill(at, RecordFrame.SEQUENCE_OFFSET);
        if (available < RecordFrame.SEQUENCE_OFFSET) {
            return RecordFrame.INVALID;
        }
        int offset = (int) (at - bufferStart);
        if (buffer.getInt(offset) != RecordFrame.MAGIC) {
            return RecordFrame.INVALID; // the common case of a resynchronizing scan: no refill
        }
        int result = RecordFrame.check(buffer, offset, available, crc);
        if (result == RecordFrame.NEED_MORE) {
            long total = buffer.getInt(offset + RecordFrame.LENGTH_OFFSET) + 12L;
            if (at + total > limit) {
                return RecordFrame.INVALID; // runs past the end: torn, or a corrupt length
            }
            available = fill(at, (int) total);
            offset = (int) (at - bufferStart);
            result = RecordFrame.check(buffer, offset, available, crc);
        }
        frameOffset = offset;
        return result;
    }

    /** Makes at least {@code want} bytes from {@code at} present if the limit allows; @return bytes present */
    private int fill(long at, int want) throws IOException {
        long end = bufferStart + bufferBytes;
        if (at >= bufferStart && at + want <= end) {
            return (int) (Math.min(end, limit) - at);
        }
        if (want > buffer.capacity()) {
            buffer = ByteBuffer.allocate(Math.max(want, buffer.capacity() * 2));
        }
        long toRead = Math.min(buffer.capacity(), limit - at);
        buffer.clear().limit((int) toRead);
        bufferStart = at;
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, at + buffer.position()) < 0) {
                break;
            }
        }
        bufferBytes = buffer.position();
        bytesRead += bufferBytes;
        return bufferBytes;
    }

    /** @return the buffer holding the current frame; valid until the next call */
    ByteBuffer buffer() {
        return buffer;
    }

    int frameOffset() {
        return frameOffset;
    }

    int frameBytes() {
        return frameBytes;
    }

    /** @return the file position of the current frame */
    long framePosition() {
        return framePosition;
    }

    /** @return the sequence of the last valid frame, or the {@code after} of {@link #reset} */
    long lastSequence() {
        return lastSequence;
    }

    /** @return where the skipped bytes began in the last {@link #next()}, or -1 */
    long skippedFrom() {
        return skippedFrom;
    }

    /** @return bytes this cursor read from files since it was created (every reset included) */
    long bytesRead() {
        return bytesRead;
    }

    /** @return the file position the next frame is looked for at */
    long position() {
        return position;
    }
}
