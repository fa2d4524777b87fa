package io.ringbus.core;

/**
 * Where a subscriber's handler runs.
 *
 * <p>Immutable; safe to share between threads.
 */
public enum ExecutionMode {
    /**
     * On the dispatch thread that read the message from the ring. Fastest, allocation-free;
     * the handler must not block, or every subscriber of that event loop waits.
     */
    EVENT_LOOP,
    /** On the broker's bounded pool of platform worker threads, fed from a per-subscriber buffer. */
    WORKER,
    /** On a new virtual thread per activation (never pooled), fed from a per-subscriber buffer. */
    VIRTUAL,
    /**
     * On the publishing thread itself, inside {@code publish}, before it returns: no ring, no
     * queue, no hop. Messages of one publishing thread arrive in publish order; several
     * publishers call the handler concurrently, so it must be thread-safe, and it must not block
     * (it stalls only its publisher, never other subscribers). This is how network fronts
     * deliver: the handler appends to a connection's bounded outbound buffer. The message is a
     * detached one, valid after the call. Not watched by the watchdog: the publisher's thread is
     * the caller's own.
     */
    PUBLISHER
}
