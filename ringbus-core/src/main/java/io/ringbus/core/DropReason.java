package io.ringbus.core;

/** Why an accepted message did not reach a subscriber. */
public enum DropReason {
    /** {@link OverflowPolicy#DROP_OLDEST}: evicted from a full subscriber buffer. */
    OVERFLOW_DROP_OLDEST,
    /** {@link OverflowPolicy#DROP_NEWEST}: refused by a full subscriber buffer. */
    OVERFLOW_DROP_NEWEST,
    /** {@link OverflowPolicy#DISCONNECT}: the subscriber was closed as a slow consumer. */
    SLOW_CONSUMER_DISCONNECT,
    /** The broker closed before the message could be delivered within the drain timeout. */
    SHUTDOWN
}
