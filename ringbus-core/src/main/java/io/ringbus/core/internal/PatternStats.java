package io.ringbus.core.internal;

import io.ringbus.core.DropReason;
import io.ringbus.core.ExecutionMode;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The figures of every subscription that shares one {@code pattern} tag, for the meters of a
 * broker built with a registry. Free of Micrometer types, so that subscribers can hold one
 * without loading Micrometer: {@link PatternMeters} is the only subclass.
 *
 * <p>Delivered counts are mostly not kept here: they are the subscribers' own counters, summed
 * when the meters are read, plus what retired subscribers had delivered. PUBLISHER subscriptions
 * are the exception: a network server holds a million of them, which a set of live subscribers
 * would make costly to add and remove, so they count here ({@link #deliveredDirect}) and are not
 * tracked one by one (they buffer nothing: no pending, no lag). Handler latency
 * ({@link #recordHandler}) and that count are the work done per delivery.
 */
abstract class PatternStats {
    private static final int MODES = ExecutionMode.values().length;

    /** The {@code pattern} tag: the subscription pattern, {@code _INBOX.>} or {@code _other}. */
    final String tag;
    /** Sampling - 1 (sampling is a power of two): a call is timed when its number {@code its number & mask is 0 mask} is 0. */
    final long latencySampleMask;
    private final Set<Subscriber> live = ConcurrentHashMap.newKeySet();
    private final LongAdder[] retiredDelivered = new LongAdder[MODES];
    /** Highest delivered sum reported per mode: a counter read never goes backwards. */
    private final AtomicLongArray reported = new AtomicLongArray(MODES);
    private final LongAdder handlerErrors = new LongAdder();
    private final LongAdder directDelivered = new LongAdder();
    private final LongAdder[] dropped = new LongAdder[DropReason.values().length];
    /** Subscriptions using this tag, counting those being created; guarded by the owner's lock. */
    int references;

    PatternStats(String tag, int latencySampling) {
        this.tag = tag;
        this.latencySampleMask = latencySampling - 1;
        for (int i = 0; i < MODES; i++) {
            retiredDelivered[i] = new LongAdder();
        }
        for (int i = 0; i < dropped.length; i++) {
            dropped[i] = new LongAdder();
        }
    }

    /**
     * Hot path, on the handler's thread, only with a registry: one handler call took {@code nanos}.
     * Must not allocate.
     */
    abstract void recordHandler(ExecutionMode mode, long nanos);

    /** Called after the first drop for {@code reason}, so that the meter exists from then on. */
    abstract void firstDrop(DropReason reason);

    /** A subscription of this tag now receives messages. */
    final void attach(Subscriber subscriber) {
        if (!(subscriber instanceof PublisherSubscriber)) {
            live.add(subscriber);
        }
    }

    /** A PUBLISHER subscription of this tag made one handler call (any publishing thread). */
    final void deliveredDirect() {
        directDelivered.increment();
    }

    /** A subscription of this tag retired: its deliveries so far stay in the totals. */
    final void detach(Subscriber subscriber) {
        if (!(subscriber instanceof PublisherSubscriber) && live.remove(subscriber)) {
            retiredDelivered[subscriber.options().mode().ordinal()].add(subscriber.delivered());
        }
    }

    final void handlerError() {
        handlerErrors.increment();
    }

    final void dropped(DropReason reason, long count) {
        LongAdder counter = dropped[reason.ordinal()];
        boolean first = counter.sum() == 0;
        counter.add(count);
        if (first) {
            firstDrop(reason);
        }
    }

    /**
     * @return handler calls made for subscriptions of this tag in {@code mode}; never less than
     *         an earlier result (a subscriber retiring between two reads could otherwise make
     *         the sum dip for a moment)
     */
    final long delivered(ExecutionMode mode) {
        int m = mode.ordinal();
        if (mode == ExecutionMode.PUBLISHER) {
            return directDelivered.sum();
        }
        long sum = retiredDelivered[m].sum();
        for (Subscriber subscriber : live) {
            if (subscriber.options().mode() == mode) {
                sum += subscriber.delivered();
            }
        }
        return reported.accumulateAndGet(m, sum, Math::max);
    }

    final long handlerErrors() {
        return handlerErrors.sum();
    }

    final long dropped(DropReason reason) {
        return dropped[reason.ordinal()].sum();
    }

    /** @return messages buffered for the live subscriptions of this tag, summed */
    final long pending() {
        long sum = 0;
        for (Subscriber subscriber : live) {
            sum += subscriber.pending();
        }
        return sum;
    }

    /**
     * @return the largest lag of a live subscription of this tag: messages published into the
     *         ring that its event loop has not dispatched yet (all subjects: an upper bound on the
     *         matching ones), plus the messages in its buffer
     */
    final long lag(RingBroker broker) {
        long max = 0;
        for (Subscriber subscriber : live) {
            max = Math.max(max, broker.loopBacklog(subscriber.loopIndex()) + subscriber.pending());
        }
        return max;
    }
}
