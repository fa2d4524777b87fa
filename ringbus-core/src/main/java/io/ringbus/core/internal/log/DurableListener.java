package io.ringbus.core.internal.log;

import java.io.IOException;

/**
 * Told by a {@link SegmentLog}'s flusher how far the log is durable, to complete acknowledgements
 * without a thread waiting per append. Called on the flusher thread: must be quick and not throw.
 */
@FunctionalInterface
public interface DurableListener {
    /**
     * @param durableSequence every record up to this sequence is durable
     * @param failure         the {@code fsync} failure that stopped the flusher, or {@code null}:
     *                        records past {@code durableSequence} will never be acknowledged durable
     */
    void durable(long durableSequence, IOException failure);
}
