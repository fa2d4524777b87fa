package io.ringbus.core.internal;

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
                        MessageHandler handler, int loopIndex, long maxExecuteNanos) {
        super(broker, id, pattern, scope, options, handler, loopIndex, maxExecuteNanos);
    }

    @Override
    boolean deliver(MessageSlot slot, HandlerProbe probe) {
        if (!isActive()) {
            return false;
        }
        probe.enter(this, slot.subject);
        try {
            handler.onMessage(slot);
        } catch (Throwable error) {
            broker.handlerFailed(error, slot, this);
        } finally {
            probe.exit();
        }
        long count = delivered + 1;
        DELIVERED.setOpaque(this, count);
        if (count >= deliveryLimit) {
            checkDeliveryLimit(count);
        }
        return true;
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
