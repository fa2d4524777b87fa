package io.ringbus.core;

/**
 * What a {@link ExecutionMode#WORKER} or {@link ExecutionMode#VIRTUAL} subscriber does when its
 * buffer is full. Every message dropped under a policy is counted in {@link BrokerStats#dropped()}.
 *
 * <p>Immutable; safe to share between threads.
 */
public enum OverflowPolicy {
    /**
     * The dispatch thread waits for room: nothing is lost, the ring fills, and publishers wait
     * ({@code publish}) or are refused ({@code tryPublish}).
     */
    BLOCK,
    /**
     * The oldest buffered message is dropped to make room for the new one (the oldest of the lowest
     * {@linkplain Message#priority() priority} buffered, when messages of several wait).
     */
    DROP_OLDEST,
    /** The new message is dropped. */
    DROP_NEWEST,
    /**
     * The message of the lowest {@linkplain Message#priority() priority} is dropped: the oldest
     * buffered one of the lowest priority when that is below the new message's, else the new one.
     * A higher-priority message is never dropped for a lower one.
     */
    DROP_LOWEST_PRIORITY,
    /**
     * The subscription is closed as a slow consumer; the new message and everything still
     * buffered are dropped.
     */
    DISCONNECT
}
