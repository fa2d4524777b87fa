package io.ringbus.bench.seed;

import io.ringbus.core.WaitStrategy;

/**
 * What a {@link Contender} wires up before a round: the subjects, their subscribers and the wait
 * strategy to use where the contender has one.
 *
 * @param subjects     subject names by index
 * @param subscribers  {@code subscribers[s]} are the subscribers of {@code subjects[s]}
 * @param waitStrategy how idle consumer threads wait, for the contenders built on a ring
 */
public record SeedTopology(String[] subjects, SeedSubscriber[][] subscribers, WaitStrategy waitStrategy) {
    /**
     * @throws IllegalArgumentException when the arrays disagree in length
     */
    public SeedTopology {
        if (subjects.length != subscribers.length) {
            throw new IllegalArgumentException("one subscriber array per subject: subjects=" + subjects.length
                    + ", subscribers=" + subscribers.length);
        }
    }
}
