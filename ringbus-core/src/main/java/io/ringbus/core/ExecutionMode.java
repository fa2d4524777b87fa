package io.ringbus.core;

/** Where a subscriber's handler runs. */
public enum ExecutionMode {
    /**
     * On the dispatch thread that read the message from the ring. Fastest, allocation-free;
     * the handler must not block, or every subscriber of that event loop waits.
     */
    EVENT_LOOP,
    /** On the broker's bounded pool of platform worker threads, fed from a per-subscriber buffer. */
    WORKER,
    /** On a new virtual thread per activation (never pooled), fed from a per-subscriber buffer. */
    VIRTUAL
}
