package io.ringbus.core.internal;

import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ExecutionMode#PUBLISHER} subscriber: the publishing thread calls its handler inside
 * {@code publish}, so a message to it never enters the ring. Any number of publishers may call
 * {@link #deliverDirect} at once; each publisher's messages arrive in its publish order.
 *
 * <p>In a queue group whose other members are served by event loops, an event loop delivers to
 * it instead ({@link #deliver}); the handler is thread-safe by contract, so that is the same call.
 */
final class PublisherSubscriber extends Subscriber {
    private final AtomicLong delivered = new AtomicLong();

    PublisherSubscriber(RingBroker broker, long id, SubjectPattern pattern, Scope scope, SubscribeOptions options,
                        MessageHandler handler, int loopIndex, PatternStats stats) {
        super(broker, id, pattern, scope, options, handler, loopIndex, Long.MAX_VALUE, stats);
    }

    /**
     * Any publishing thread: hands one message to the handler.
     *
     * @return {@code false} when inactive or past its delivery limit, so that a queue group tries another member
     */
    boolean deliverDirect(Message message) {
        if (!isActive()) {
            countIfShutdown(1);
            return false;
        }
        long limit = deliveryLimit;
        long count = limit == Long.MAX_VALUE ? delivered.getAndIncrement() : claimUnderLimit(limit);
        if (count < 0) {
            return false;
        }
        PatternStats stats = this.stats;
        if (stats == null) {
            invoke(message);
        } else if ((count & stats.latencySampleMask) == 0) {
            long start = System.nanoTime();
            invoke(message);
            stats.recordHandler(ExecutionMode.PUBLISHER, System.nanoTime() - start);
            stats.deliveredDirect();
        } else {
            invoke(message);
            stats.deliveredDirect();
        }
        if (count + 1 >= limit) {
            checkDeliveryLimit(count + 1);
        }
        return true;
    }

    /** @return the delivery number taken, or -1 when the limit is reached (never more than the limit) */
    private long claimUnderLimit(long limit) {
        for (;;) {
            long count = delivered.get();
            if (count >= limit) {
                checkDeliveryLimit(count);
                return -1;
            }
            if (delivered.compareAndSet(count, count + 1)) {
                return count;
            }
        }
    }

    private void invoke(Message message) {
        try {
            handler.onMessage(message);
        } catch (Throwable error) {
            broker.handlerFailed(error, message, this);
        }
    }

    @Override
    boolean deliver(MessageSlot slot, HandlerProbe probe) {
        return deliverDirect(slot.copy());
    }

    @Override
    void onRetire() {
        // Nothing is buffered.
    }

    @Override
    public long delivered() {
        return delivered.get();
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
