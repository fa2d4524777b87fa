package io.ringbus.core.internal.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The segments retention dropped from a {@link SegmentLog}, unlinked by the flusher (with the
 * directory forced after), not by the appending thread: an unlink waits for the file system's
 * journal, which the flusher's forces keep busy. The log's {@link LogCheckpoint}, if any, is asked
 * first and may hold them back.
 *
 * <p>Thread-safe: added to under the log's append lock, unlinked by the flusher or at close.
 */
final class RetiredSegments {
    private static final Logger LOG = LoggerFactory.getLogger(RetiredSegments.class);

    private final Queue<Segment> queue = new ConcurrentLinkedQueue<>();
    private final LogCheckpoint checkpoint;

    /** @param checkpoint the state to keep ahead of retention, or null */
    RetiredSegments(LogCheckpoint checkpoint) {
        this.checkpoint = checkpoint;
    }

    void add(Segment segment) {
        queue.add(segment);
    }

    /** @return whether a checkpoint may hold segments back (the flusher then tries again after its forces) */
    boolean checkpointed() {
        return checkpoint != null && !queue.isEmpty();
    }

    /** Tells the checkpoint of a roll (under the log's append lock). */
    void rolled(long through) {
        if (checkpoint != null) {
            checkpoint.rolled(through);
        }
    }

    /** @return whether segments dropped now may be deleted at once (OS policy, or closed) */
    boolean mayDelete(long durableThrough) {
        return checkpoint == null || checkpoint.mayUnlink(durableThrough);
    }

    /**
     * Unlinks every queued segment, unless the checkpoint holds them back.
     *
     * @param durableThrough    every record up to here is forced
     * @param directoryUnsynced set when a name was unlinked: the directory then needs a force
     */
    void unlink(long durableThrough, AtomicBoolean directoryUnsynced) {
        if (queue.isEmpty() || checkpoint != null && !checkpoint.mayUnlink(durableThrough)) {
            return;
        }
        for (Segment segment = queue.poll(); segment != null; segment = queue.poll()) {
            try {
                segment.unlink();
            } catch (IOException e) {
                LOG.warn("{}: retention could not delete it: {}", segment.logFile, e.toString());
            }
            directoryUnsynced.set(true);
        }
    }
}
