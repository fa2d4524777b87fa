package io.ringbus.bench.seed;

/** The bounded size every ring- or queue-based contender uses: the seed article's 16,384 slots. */
final class RingCapacity {
    /** Slots (messages) in the ring or queue. */
    static final int SLOTS = 16_384;

    private RingCapacity() {
    }
}
