package io.ringbus.core.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A ring slot that carries no message but an action to run once every event loop has passed it,
 * i.e. once everything published before it has been dispatched.
 */
final class Fence {
    private final Runnable action;
    private final AtomicInteger loopsToPass;

    Fence(Runnable action, int eventLoops) {
        this.action = action;
        this.loopsToPass = new AtomicInteger(eventLoops);
    }

    /** Called by each event loop when it reaches the fence; the last one runs the action. */
    void pass(RingBroker broker) {
        if (loopsToPass.decrementAndGet() == 0) {
            try {
                action.run();
            } catch (RuntimeException e) {
                broker.fenceFailed(e);
            }
        }
    }
}
