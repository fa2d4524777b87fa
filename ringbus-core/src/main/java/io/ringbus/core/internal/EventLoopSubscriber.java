package io.ringbus.core.internal;

import io.ringbus.core.ExecutionMode;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Runs its handler inline on its event loop: no copy, no queue, no allocation. The handler sees
 * the ring slot itself, which cannot be reused before the call returns.
 */
final class EventLoopSubscriber extends Subscriber {
    private static final VarHandle DELIVERED;

    static {
        try {
            DELIVERED = MethodHandles.lookup().findVarHandle(EventLoopSubscriber.class, "delivered", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Written only by the event loop; read by stats with getOpaque. */
    private long delivered;

    EventLoopSubscriber(RingBroker broker, long id, SubjectPattern pattern, Scope scope, SubscribeOptions options,
                        MessageHandler handler, int loopIndex, long maxExecuteNanos, PatternStats stats) {
        super(broker, id, pattern, scope, options, handler, loopIndex, maxExecuteNanos, stats);
    }

    @Override
    boolean deliver(MessageSlot slot, HandlerProbe probe) {
        long count = delivered;
        if (!isActive() || count >= deliveryLimit) {
            return deliverSlowPath(count);
        }
        // Without a registry stats is null: one field load and a branch, no clock read. With one,
        // calls number 0, n, 2n, ... of this subscription are timed (n = the sampling, 2^k).
        PatternStats stats = this.stats;
        if (stats != null && (count & stats.latencySampleMask) == 0) {
            invokeTimed(slot, probe, stats);
        } else {
            invoke(slot, probe);
        }
        DELIVERED.setOpaque(this, count + 1);
        if (count + 1 >= deliveryLimit) {
            checkDeliveryLimit(count + 1);
        }
        return true;
    }

    private void invoke(MessageSlot slot, HandlerProbe probe) {
        probe.enter(this, slot.subject);
        try {
            handler.onMessage(slot);
        } catch (Throwable error) {
            broker.handlerFailed(error, slot, this);
        } finally {
            probe.exit();
        }
    }

    /** The handler call, timed for the latency meter; kept apart so that {@link #deliver} stays small. */
    private void invokeTimed(MessageSlot slot, HandlerProbe probe, PatternStats stats) {
        long start = System.nanoTime();
        invoke(slot, probe);
        stats.recordHandler(ExecutionMode.EVENT_LOOP, System.nanoTime() - start);
    }

    /** Inactive, or the delivery limit is reached: the handler is not called. */
    private boolean deliverSlowPath(long count) {
        if (isActive()) {
            // Checked before each call on this single thread, so never more than the limit.
            checkDeliveryLimit(count);
        } else {
            countIfShutdown(1);
        }
        return false;
    }

    @Override
    void onRetire() {
        // Nothing is buffered.
    }

    @Override
    public long delivered() {
        return (long) DELIVERED.getOpaque(this);
    }

    @Override
    public long pending() {
        return 0;
    }

    @Override
    public long dropped() {
        return 0;
    }
}
