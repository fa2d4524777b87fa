package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link SegmentLog} stores, forces and retains its records.
 *
 * <p>Retention limits of {@code 0} (or {@link Duration#ZERO}) are unbounded. Retention deletes
 * whole segments, oldest first, and never the active one. At each roll it counts the new active
 * segment as full ({@code segmentBytes}, {@code segmentRecords}), so the log never holds more than
 * {@code maxBytes} / {@code maxRecords} while each record fits a segment: a record larger than
 * {@code segmentBytes} (it gets a segment of its own) may take the log past {@code maxBytes} by
 * its excess, and a limit smaller than one segment keeps the one active segment. Retention leaves
 * at least {@code maxBytes - 2 * segmentBytes} (the same for records) of what was appended.
 *
 * @param segmentBytes   size at which the active segment is closed and a new one started
 * @param segmentRecords records at which the active segment is closed, {@code 0} unbounded
 * @param policy         when appended records are forced to the disk
 * @param intervalMillis period of the flusher's {@code fsync} under {@link FsyncPolicy#INTERVAL}
 * @param maxBytes       retention: the most bytes of segment files kept, {@code 0} unbounded
 * @param maxRecords     retention: the most records kept, {@code 0} unbounded
 * @param maxAge         retention: a segment whose newest record is older is deleted,
 *                       {@link Duration#ZERO} unbounded
 * @param maxRecordBytes the largest subject + headers + payload of one record, in bytes
 * @param indexCheckpointBytes log bytes after which the flusher forces the active segment's index
 *                       (with the log's next force, ALWAYS and INTERVAL): what a power cut can leave
 *                       for recovery to scan, beyond what was appended after the last force
 */
public record LogConfig(long segmentBytes, long segmentRecords, FsyncPolicy policy, long intervalMillis, long maxBytes,
                        long maxRecords, Duration maxAge, int maxRecordBytes, long indexCheckpointBytes) {

    /** Default {@link #segmentBytes()}: 64 MiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
    /** Default {@link #intervalMillis()}. */
    public static final long DEFAULT_INTERVAL_MILLIS = 100;
    /** Default {@link #maxRecordBytes()}: 1 MiB. */
    public static final int DEFAULT_MAX_RECORD_BYTES = 1 << 20;
    /** The smallest accepted {@link #segmentBytes()}. */
    public static final long MIN_SEGMENT_BYTES = 1024;
    /** Default {@link #indexCheckpointBytes()}: 8 MiB. */
    public static final long DEFAULT_INDEX_CHECKPOINT_BYTES = 8L << 20;
    /** The smallest accepted {@link #indexCheckpointBytes()}: the index's own interval. */
    public static final long MIN_INDEX_CHECKPOINT_BYTES = SegmentIndex.INTERVAL_BYTES;

    /** Validates every value; the message names the bad one. */
    public LogConfig {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(maxAge, "maxAge");
        if (segmentBytes < MIN_SEGMENT_BYTES) {
            throw new IllegalArgumentException("segmentBytes must be at least " + MIN_SEGMENT_BYTES
                    + ": segmentBytes=" + segmentBytes);
        }
        if (segmentRecords < 0) {
            throw new IllegalArgumentException("segmentRecords must be >= 0 (0 = unbounded): segmentRecords="
                    + segmentRecords);
        }
        if (intervalMillis <= 0) {
            throw new IllegalArgumentException("intervalMillis must be positive: intervalMillis="
                    + intervalMillis);
        }
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes must be >= 0 (0 = unbounded): maxBytes="
                    + maxBytes);
        }
        if (maxRecords < 0) {
            throw new IllegalArgumentException("maxRecords must be >= 0 (0 = unbounded): maxRecords="
                    + maxRecords);
        }
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("maxAge must not be negative (ZERO = unbounded): maxAge="
                    + maxAge);
        }
        if (maxRecordBytes <= 0 || maxRecordBytes > RecordFrame.MAX_RECORD_BYTES) {
            throw new IllegalArgumentException("maxRecordBytes must be in 1.." + RecordFrame.MAX_RECORD_BYTES
                    + ": maxRecordBytes=" + maxRecordBytes);
        }
        if (indexCheckpointBytes < MIN_INDEX_CHECKPOINT_BYTES) {
            throw new IllegalArgumentException("indexCheckpointBytes must be at least " + MIN_INDEX_CHECKPOINT_BYTES
                    + ": indexCheckpointBytes=" + indexCheckpointBytes);
        }
    }

    /**
     * Starts a builder with the defaults: 64 MiB segments, {@link FsyncPolicy#ALWAYS}, no retention.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The default configuration.
     *
     * @return the defaults
     */
    public static LogConfig defaults() {
        return builder().build();
    }

    /** Builds a {@link LogConfig}; {@link #build()} validates. Not thread-safe. */
    public static final class Builder {
        private long segmentBytes = DEFAULT_SEGMENT_BYTES;
        private long segmentRecords;
        private FsyncPolicy policy = FsyncPolicy.ALWAYS;
        private long intervalMillis = DEFAULT_INTERVAL_MILLIS;
        private long maxBytes;
        private long maxRecords;
        private Duration maxAge = Duration.ZERO;
        private int maxRecordBytes = DEFAULT_MAX_RECORD_BYTES;
        private long indexCheckpointBytes = DEFAULT_INDEX_CHECKPOINT_BYTES;

        private Builder() {
        }

        /**
         * Sets size at which a segment rolls.
         *
         * @param value the value
         * @return this builder
         */
        public Builder segmentBytes(long value) {
            this.segmentBytes = value;
            return this;
        }

        /**
         * Sets the records at which a segment rolls, 0 unbounded.
         *
         * @param value the value
         * @return this builder
         */
        public Builder segmentRecords(long value) {
            this.segmentRecords = value;
            return this;
        }

        /**
         * Sets the durability policy.
         *
         * @param value the value
         * @return this builder
         */
        public Builder policy(FsyncPolicy value) {
            this.policy = value;
            return this;
        }

        /**
         * Sets the {@link FsyncPolicy#INTERVAL} period in ms.
         *
         * @param value the value
         * @return this builder
         */
        public Builder intervalMillis(long value) {
            this.intervalMillis = value;
            return this;
        }

        /**
         * Sets retention by bytes, 0 unbounded.
         *
         * @param value the value
         * @return this builder
         */
        public Builder maxBytes(long value) {
            this.maxBytes = value;
            return this;
        }

        /**
         * Sets retention by records, 0 unbounded.
         *
         * @param value the value
         * @return this builder
         */
        public Builder maxRecords(long value) {
            this.maxRecords = value;
            return this;
        }

        /**
         * Sets retention by age, ZERO unbounded.
         *
         * @param value the value
         * @return this builder
         */
        public Builder maxAge(Duration value) {
            this.maxAge = value;
            return this;
        }

        /**
         * Sets largest subject + headers + payload in bytes.
         *
         * @param value the value
         * @return this builder
         */
        public Builder maxRecordBytes(int value) {
            this.maxRecordBytes = value;
            return this;
        }

        /**
         * Sets the log bytes after which the active segment's index is forced.
         *
         * @param value the value
         * @return this builder
         */
        public Builder indexCheckpointBytes(long value) {
            this.indexCheckpointBytes = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the configuration
         * @throws IllegalArgumentException naming the first bad value
         */
        public LogConfig build() {
            return new LogConfig(segmentBytes, segmentRecords, policy, intervalMillis, maxBytes, maxRecords, maxAge,
                    maxRecordBytes, indexCheckpointBytes);
        }
    }

    /** @return the refusal of a record larger than {@link #maxRecordBytes()} or with a subject too long */
    IllegalArgumentException tooLarge(int subjectBytes, int headerBytes, int payloadBytes) {
        return new IllegalArgumentException("record too large: subject=" + subjectBytes + " B (max "
                + RecordFrame.MAX_SUBJECT_BYTES + "), subject + headers + payload=" + subjectBytes + " + "
                + headerBytes + " + " + payloadBytes + " B, maxRecordBytes=" + maxRecordBytes());
    }
}
