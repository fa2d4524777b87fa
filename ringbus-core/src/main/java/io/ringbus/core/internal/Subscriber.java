package io.ringbus.core.internal;

import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import io.ringbus.core.internal.filter.SharedBody;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A subscription as the broker sees it: bound to one event loop, which hands it every matching
 * message in ring order through {@link #deliver}.
 */
abstract class Subscriber implements Subscription {
    /** Subjects whose indexed-group counts a subscriber keeps apart (see {@link #joined}). */
    private static final int MAX_MEMBERSHIPS = 1_024;
    final RingBroker broker;
    final MessageHandler handler;
    /** The figures of this subscription's pattern tag; {@code null} when the broker has no registry. */
    final PatternStats stats;
    /** What the subscriber takes; {@code null}: everything. Tested before a message is buffered. */
    final MessageFilter filter;
    /** Messages the filter rejected; striped, as PUBLISHER subscribers are tested on many threads. Null without a filter. */
    private final LongAdder rejected;
    /**
     * The subscriber's place in the indexed groups of its routes, by subject (one per route: a
     * rebuilt route's replaces the old one, whose count is folded into {@link #folded}). Made on
     * first use; only subscribers with an indexable filter have one.
     */
    private volatile ConcurrentHashMap<String, IndexedSubscribers.Membership> memberships;
    /** Rejections counted by groups no longer in use. */
    private final AtomicLong folded = new AtomicLong();
    private final long id;
    private final SubjectPattern pattern;
    private final Scope scope;
    private final SubscribeOptions options;
    private final int loopIndex;
    private final long maxExecuteNanos;
    private final AtomicBoolean retired = new AtomicBoolean();
    /** Set before retiring when the broker closes: what is then left undelivered counts as SHUTDOWN. */
    private volatile boolean shutdown;
    /** Read on every dispatch: a volatile load is a plain load on x86. */
    private volatile boolean active = true;
    /** Total deliveries after which to unsubscribe; Long.MAX_VALUE for none. */
    volatile long deliveryLimit = Long.MAX_VALUE;

    Subscriber(RingBroker broker, long id, SubjectPattern pattern, Scope scope, SubscribeOptions options,
               MessageHandler handler, int loopIndex, long maxExecuteNanos, PatternStats stats) {
        this.broker = broker;
        this.stats = stats;
        this.id = id;
        this.pattern = pattern;
        this.scope = scope;
        this.options = options;
        this.handler = handler;
        this.loopIndex = loopIndex;
        this.maxExecuteNanos = maxExecuteNanos;
        this.filter = options.filter();
        this.rejected = filter == null ? null : new LongAdder();
    }

    /**
     * The routing thread, before delivery: whether this subscriber takes {@code message}; counts a
     * rejection. A filter that throws rejects the message and is reported as a handler error
     * (a routing loop never dies of a filter).
     */
    final boolean accepts(Message message) {
        return accepts(message, null);
    }

    /**
     * As {@link #accepts(Message)}, with the body read once for the route's body policies.
     *
     * @param reading the message's shared body reading, or {@code null} to let the filter read it
     */
    final boolean accepts(Message message, SharedBody.Reading reading) {
        MessageFilter f = filter;
        if (f == null) {
            return true;
        }
        broker.filterEvaluated();
        boolean taken;
        try {
            taken = reading == null ? f.test(message) : reading.test(f, message);
        } catch (RuntimeException e) {
            // The error handler may keep what it is given: a copy, never a publisher's view.
            broker.handlerFailed(e, message.copy(), this);
            taken = false;
        }
        if (!taken) {
            rejected.increment();
        }
        return taken;
    }

    /**
     * The routing thread: a filter alike to this one ({@link SharedBody#alike}) rejected the
     * message being routed; counted as this subscriber's rejection, without asking its filter.
     */
    final void rejectedAlike() {
        rejected.increment();
    }

    /**
     * Any thread: whether the filter takes {@code message}, without counting (a queue group's loop
     * asking about a member another loop serves); a filter that throws does not take it.
     */
    final boolean takes(Message message) {
        if (filter != null) {
            broker.filterEvaluated();
        }
        try {
            return filter == null || filter.test(message);
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public final long filtered() {
        if (rejected == null) {
            return 0;
        }
        long total = rejected.sum() + folded.get();
        var joined = memberships;
        if (joined != null) {
            for (IndexedSubscribers.Membership membership : joined.values()) {
                total += membership.rejected();
            }
        }
        return total;
    }

    /**
     * A route was built with this subscriber in an indexed group: counts from the group it replaces
     * (same subject) are kept. Bounded: past {@link #MAX_MEMBERSHIPS} subjects, all are folded
     * (a message routed through a folded group meanwhile is not counted).
     */
    final void joined(String subject, IndexedSubscribers.Membership membership) {
        var joined = memberships;
        if (joined == null) {
            synchronized (this) {
                joined = memberships;
                if (joined == null) {
                    joined = memberships = new ConcurrentHashMap<>();
                }
            }
        }
        if (joined.size() >= MAX_MEMBERSHIPS) {
            for (IndexedSubscribers.Membership old : joined.values()) {
                folded.addAndGet(old.rejected());
            }
            joined.clear();
        }
        IndexedSubscribers.Membership old = joined.put(subject, membership);
        if (old != null) {
            folded.addAndGet(old.rejected());
        }
    }

    /**
     * Called on this subscriber's event loop for each matching message.
     *
     * @return {@code false} when inactive, so that a queue group tries another member
     */
    abstract boolean deliver(MessageSlot slot, HandlerProbe probe);

    /** Frees what the subscriber holds once it is retired; buffered messages are discarded. */
    abstract void onRetire();

    final SubjectPattern subjectPattern() {
        return pattern;
    }

    /** The event loop serving this subscriber: it alone calls {@link #deliver}. */
    final int loopIndex() {
        return loopIndex;
    }

    final long maxExecuteNanos() {
        return maxExecuteNanos;
    }

    @Override
    public final long id() {
        return id;
    }

    @Override
    public final String pattern() {
        return pattern.text();
    }

    @Override
    public final Scope scope() {
        return scope;
    }

    @Override
    public final SubscribeOptions options() {
        return options;
    }

    @Override
    public final boolean isActive() {
        return active;
    }

    @Override
    public final void unsubscribe() {
        retire();
    }

    @Override
    public final void unsubscribeAfter(long maxMessages) {
        if (maxMessages <= 0) {
            throw new IllegalArgumentException("maxMessages must be > 0: maxMessages=" + maxMessages);
        }
        deliveryLimit = maxMessages;
        if (delivered() >= maxMessages) {
            retire();
        }
    }

    /**
     * Stops delivery and removes the subscriber from the index; idempotent.
     *
     * @return {@code true} for the call that retired it
     */
    final boolean retire() {
        active = false;
        if (!retired.compareAndSet(false, true)) {
            return false;
        }
        broker.retire(this);
        onRetire();
        return true;
    }

    /** Retires the subscriber because the broker is closing. */
    final void retireForShutdown() {
        shutdown = true;
        retire();
    }

    /** @return whether the broker's close retired this subscriber */
    final boolean isShutdown() {
        return shutdown;
    }

    /** Counts a message this subscriber will not get because the broker closed; no-op otherwise. */
    final void countIfShutdown(long count) {
        if (shutdown && count > 0) {
            broker.countDrop(this, io.ringbus.core.DropReason.SHUTDOWN, count);
        }
    }

    /** Retires the subscriber once its delivery limit is reached; called after each delivery. */
    final void checkDeliveryLimit(long deliveredNow) {
        if (deliveredNow >= deliveryLimit) {
            retire();
        }
    }

    @Override
    public String toString() {
        return "Subscription{id=" + id + ", pattern=" + pattern.text() + ", scope=" + scope + ", mode="
                + options.mode() + (options.queueGroup() == null ? "" : ", queueGroup=" + options.queueGroup()) + '}';
    }
}
