package io.ringbus.bench.seed;

/**
 * One event of the seed scenario: which producer published it and its place in that producer's
 * sequence. Immutable and preallocated before any round, so no contender pays for its creation.
 *
 * @param producer the producer's index, from 0
 * @param sequence the event's index in its producer's sequence, from 0
 */
public record SeedEvent(int producer, int sequence) {
    /**
     * @throws IllegalArgumentException when an index is negative
     */
    public SeedEvent {
        if (producer < 0 || sequence < 0) {
            throw new IllegalArgumentException("indices must be >= 0: producer=" + producer + ", sequence=" + sequence);
        }
    }
}
