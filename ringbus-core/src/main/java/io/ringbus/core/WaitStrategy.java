package io.ringbus.core;

/**
 * How an idle event loop waits for the next message (the Disruptor's wait strategies).
 *
 * <p>Immutable; safe to share between threads.
 */
public enum WaitStrategy {
    /** Lock and condition: least CPU when idle, highest wake-up latency. */
    BLOCKING,
    /** Spin, then yield, then sleep briefly: a balance of CPU and latency. */
    SLEEPING,
    /** Spin, then {@link Thread#yield()}: low latency, a busy core when other threads need none. */
    YIELDING,
    /** Spin without pause: lowest latency, one core per event loop at 100%. */
    BUSY_SPIN
}
