package io.ringbus.core;

/**
 * Why an accepted message did not reach a subscriber. Counts are per subscriber: a message that
 * misses three subscribers counts three.
 *
 * <p>Immutable; safe to share between threads.
 */
public enum DropReason {
    /** {@link OverflowPolicy#DROP_OLDEST}: evicted from a full subscriber buffer. */
    OVERFLOW_DROP_OLDEST,
    /** {@link OverflowPolicy#DROP_NEWEST}: refused by a full subscriber buffer. */
    OVERFLOW_DROP_NEWEST,
    /** {@link OverflowPolicy#DROP_LOWEST_PRIORITY}: the lowest-priority message of a full buffer (or the new one). */
    OVERFLOW_DROP_LOWEST_PRIORITY,
    /** {@link OverflowPolicy#DISCONNECT}: the subscriber was closed as a slow consumer. */
    SLOW_CONSUMER_DISCONNECT,
    /**
     * A queue group's chosen member was unsubscribed while the message was in flight, and no
     * other member served by the same event loop could take it.
     */
    QUEUE_GROUP_MEMBER_LEFT,
    /**
     * Every member of a queue group has a filter ({@link SubscribeOptions#filter}) and none took
     * the message; counted once per group (against the member the message would have gone to).
     */
    FILTERED_BY_EVERY_MEMBER,
    /** The broker closed before the message could be delivered within the drain timeout. */
    SHUTDOWN
}
