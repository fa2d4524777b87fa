package io.ringbus.core.internal;

import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.ViewHandler;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link ExecutionMode#PUBLISHER} subscriber: the publishing thread calls its handler inside
 * {@code publish}, so a message to it never enters the ring. Any number of publishers may call
 * {@link #deliverDirect} at once; each publisher's messages arrive in its publish order.
 *
 * <p>In a queue group whose other members are served by event loops, an event loop delivers to
 * it instead ({@link #deliver}); the handler is thread-safe by contract, so that is the same call.
 */
final class PublisherSubscriber extends Subscriber {
    /** Deliveries while no limit is set: many publishers add at once (fan-in), so a striped counter. */
    private final LongAdder unlimited = new LongAdder();
    /** Deliveries counted against a limit ({@link #unsubscribeAfter}): exact, so one atomic counter. */
    private final AtomicLong limited = new AtomicLong();
    /** Whether the handler reads views ({@link ViewHandler}); any other gets an immutable copy of a view. */
    private final boolean takesViews;

    PublisherSubscriber(RingBroker broker, long id, SubjectPattern pattern, Scope scope, SubscribeOptions options,
                        MessageHandler handler, int loopIndex, PatternStats stats) {
        super(broker, id, pattern, scope, options, handler, loopIndex, Long.MAX_VALUE, stats);
        this.takesViews = handler instanceof ViewHandler;
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
        long count;
        if (limit == Long.MAX_VALUE) {
            unlimited.increment();
            count = 0;
        } else {
            count = claimUnderLimit(limit);
            if (count < 0) {
                return false;
            }
        }
        PatternStats stats = this.stats;
        if (stats == null) {
            invoke(message);
        } else if ((ThreadLocalRandom.current().nextInt() & stats.latencySampleMask) == 0) {
            // Sampled at random (one call in sampling): the count of a striped counter is not at hand.
            long start = System.nanoTime();
            invoke(message);
            stats.recordHandler(ExecutionMode.PUBLISHER, System.nanoTime() - start);
            stats.deliveredDirect();
        } else {
            invoke(message);
            stats.deliveredDirect();
        }
        if (limit != Long.MAX_VALUE && count + 1 >= limit) {
            checkDeliveryLimit(count + 1);
        }
        return true;
    }

    /**
     * @return the delivery number taken, or -1 when the limit is reached. Never more than the
     *         limit once it is set; a publisher racing {@link #unsubscribeAfter} itself may
     *         deliver one message past it, as it may with any concurrent unsubscribe.
     */
    private long claimUnderLimit(long limit) {
        long before = unlimited.sum();
        for (;;) {
            long claimed = limited.get();
            long count = before + claimed;
            if (count >= limit) {
                checkDeliveryLimit(count);
                return -1;
            }
            if (limited.compareAndSet(claimed, claimed + 1)) {
                return count;
            }
        }
    }

    /**
     * @param message a copy, or a publisher's view ({@link io.ringbus.core.Client#tryPublishView}):
     *                only a {@link ViewHandler} gets a view itself ({@code copy()} of a copy is itself)
     */
    private void invoke(Message message) {
        Message given = takesViews ? message : message.copy();
        try {
            handler.onMessage(given);
        } catch (Throwable error) {
            broker.handlerFailed(error, given.copy(), this);
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
        return unlimited.sum() + limited.get();
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
