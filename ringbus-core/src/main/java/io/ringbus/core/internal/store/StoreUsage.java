package io.ringbus.core.internal.store;

import io.ringbus.core.StreamConfig;

import java.util.Collection;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bytes a {@link LocalStorage} holds, all streams together, against its limit (JetStream's
 * {@code max_file_store}): measured from the streams' logs by the store's saver thread every
 * {@link LocalStorage#STATE_SAVE_MILLIS} ms, with the bytes appended since added as they come. Past
 * the limit a stream refuses new messages as nats-server does ({@code used > max}: "insufficient
 * resources"); what is stored stays.
 *
 * <p>Memory streams are files of the store too (their log lives in the page cache, never forced,
 * and the kernel writes it back to the disk): their bytes count against the memory limit and,
 * with the file streams', against the store's ({@link #sharesDiskWith}), so that the store's limit
 * bounds what its disk holds whatever the streams' storage.
 *
 * <p>Thread-safe.
 */
final class StoreUsage {
    private final long max;
    private final StreamConfig.Medium medium;
    private volatile long measured;
    private final LongAdder since = new LongAdder();
    /** The memory streams' usage, whose files lie on this store's disk (set once, for the file usage). */
    private volatile StoreUsage memoryOnDisk;
    /** The store's usage, whose limit memory streams stay under too (set once, for the memory usage). */
    private volatile StoreUsage disk;

    /**
     * @param max    the most bytes, {@link Long#MAX_VALUE} for no limit
     * @param medium the streams it counts
     */
    StoreUsage(long max, StreamConfig.Medium medium) {
        this.medium = medium;
        if (max < 1) {
            throw new IllegalArgumentException("the store's byte limit must be positive: maxBytes=" + max);
        }
        this.max = max;
    }

    /** @return the limit, {@link Long#MAX_VALUE} when none */
    long max() {
        return max;
    }

    /** @return bytes held now (as last measured, plus what was appended since) */
    long used() {
        return measured + since.sum();
    }

    /**
     * Links the file streams' usage ({@code this}) and the memory streams' ({@code memory}): the
     * store's limit counts both, the memory limit memory streams only.
     */
    void sharesDiskWith(StoreUsage memory) {
        this.memoryOnDisk = memory;
        memory.disk = this;
    }

    /**
     * @return whether new messages are refused: this usage is past its limit, or (memory streams'
     *         files included) the store's disk is
     */
    boolean exceeded() {
        StoreUsage memory = memoryOnDisk;
        if (memory != null) {
            return max != Long.MAX_VALUE && used() + memory.used() > max;
        }
        StoreUsage store = disk;
        return max != Long.MAX_VALUE && used() > max || store != null && store.exceeded();
    }

    /** A stream appended {@code bytes}. */
    void appended(long bytes) {
        since.add(bytes);
    }

    /** Measures what the streams' logs hold now (the saver thread, and after a stream is deleted). */
    void measure(Collection<LocalStream> streams) {
        long total = 0;
        for (LocalStream stream : streams) {
            if (stream.config().medium() == medium) {
                total += stream.log().stats().bytes();
            }
        }
        since.reset();
        measured = total;
    }
}
