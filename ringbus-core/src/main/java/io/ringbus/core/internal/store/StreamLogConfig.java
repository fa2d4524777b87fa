package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.internal.log.LogConfig;

import java.time.Duration;

/** How a {@link LocalStream}'s configuration becomes its {@link io.ringbus.core.internal.log.SegmentLog}'s. */
final class StreamLogConfig {
    /**
     * A stream with a byte or message limit rolls its segments at this fraction of the limit, so
     * that retention, which deletes whole segments, can hold the limit (see {@link LogConfig}).
     */
    static final int SEGMENTS_PER_LIMIT = 8;

    private StreamLogConfig() {
    }

    /**
     * @return the log's configuration: the store's policy and segment size, the stream's limits when
     *         it discards old messages (discard new: the log keeps every record; the stream refuses
     *         what would pass a limit, see {@link AppendRules})
     */
    static LogConfig of(StreamConfig config, FsyncPolicy policy, long intervalMillis, long storeSegmentBytes) {
        boolean discardsOld = config.admission().discard() == StreamConfig.Discard.OLD;
        return LogConfig.builder().policy(policy).intervalMillis(intervalMillis)
                .segmentBytes(segmentBytes(config, storeSegmentBytes)).segmentRecords(segmentRecords(config))
                .maxBytes(discardsOld ? Math.max(0, config.maxBytes()) : 0)
                .maxRecords(discardsOld ? Math.max(0, config.maxMessages()) : 0)
                .maxAge(config.maxAge() == null ? Duration.ZERO : config.maxAge()).build();
    }

    /**
     * @return the store's segment size, or a {@link #SEGMENTS_PER_LIMIT}th of the stream's byte limit
     *         when smaller (at least {@link LogConfig#MIN_SEGMENT_BYTES})
     */
    static long segmentBytes(StreamConfig config, long storeSegmentBytes) {
        if (config.maxBytes() <= 0) {
            return storeSegmentBytes;
        }
        long fraction = Math.max(LogConfig.MIN_SEGMENT_BYTES, config.maxBytes() / SEGMENTS_PER_LIMIT);
        return Math.min(storeSegmentBytes, fraction);
    }

    /** @return a {@link #SEGMENTS_PER_LIMIT}th of the stream's message limit (at least 1), 0 without one */
    static long segmentRecords(StreamConfig config) {
        return config.maxMessages() <= 0 ? 0 : Math.max(1, config.maxMessages() / SEGMENTS_PER_LIMIT);
    }
}
