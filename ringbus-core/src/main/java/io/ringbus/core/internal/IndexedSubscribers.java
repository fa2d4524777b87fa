package io.ringbus.core.internal;

import io.ringbus.core.internal.filter.ExactHeaderIndex;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * The filtered subscribers of one route on one event loop whose filters take only exact values of
 * one header ({@link ExactHeaderIndex#keyOf}): a message costs one lookup of that header's value,
 * and only the subscribers that want the value are visited, instead of one filter evaluation per
 * subscriber. Rejections are counted once per message for the whole group ({@link #examined});
 * each subscriber's share is {@code examined - hits} ({@link Membership}).
 *
 * <p>Threading: built once; {@link #deliver} is called only by the route's event loop.
 */
final class IndexedSubscribers {
    private static final VarHandle EXAMINED;
    private static final VarHandle HITS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            EXAMINED = lookup.findVarHandle(IndexedSubscribers.class, "examined", long.class);
            HITS = lookup.findVarHandle(Membership.class, "hits", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ExactHeaderIndex index;
    private final Membership[] members;
    /** Messages looked up (one value or none); written by the event loop only, read by anyone (opaque). */
    @SuppressWarnings("unused") // through EXAMINED
    private long examined;

    /**
     * One subscriber in one group: its filter took only the messages it was found for (and, when
     * not whole, that its whole filter then took).
     */
    static final class Membership {
        final Subscriber subscriber;
        final boolean whole;
        final IndexedSubscribers group;
        /** Messages it was found for; event loop only, read by anyone (opaque). */
        @SuppressWarnings("unused") // through HITS
        private long hits;

        Membership(Subscriber subscriber, boolean whole, IndexedSubscribers group) {
            this.subscriber = subscriber;
            this.whole = whole;
            this.group = group;
        }

        /** Any thread: the messages of this group the subscriber's filter rejected without being asked. */
        long rejected() {
            return (long) EXAMINED.getOpaque(group) - (long) HITS.getOpaque(this);
        }
    }

    /**
     * @param header  the header every subscriber's key names
     * @param members the subscribers
     * @param keys    each subscriber's key, in the same order
     * @param subject the route's subject, the key of the subscribers' memberships
     */
    IndexedSubscribers(String header, List<Subscriber> members, List<ExactHeaderIndex.Key> keys, String subject) {
        ExactHeaderIndex.Builder builder = new ExactHeaderIndex.Builder(header);
        this.members = new Membership[members.size()];
        for (int i = 0; i < members.size(); i++) {
            Membership membership = new Membership(members.get(i), keys.get(i).whole(), this);
            this.members[i] = membership;
            builder.add(keys.get(i), membership);
        }
        this.index = builder.build();
        for (Membership membership : this.members) {
            membership.subscriber.joined(subject, membership);
        }
    }

    /** @return the subscribers, for routes derived from this one */
    Subscriber[] subscribers() {
        Subscriber[] list = new Subscriber[members.length];
        for (int i = 0; i < members.length; i++) {
            list[i] = members[i].subscriber;
        }
        return list;
    }

    /** Event loop: delivers {@code slot} to the members whose filter takes it. */
    void deliver(MessageSlot slot, HandlerProbe probe) {
        Object[] found = index.lookup(slot.headers);
        if (found == ExactHeaderIndex.SEVERAL_VALUES) {
            deliverEach(slot, probe);
            return;
        }
        EXAMINED.setOpaque(this, (long) EXAMINED.getOpaque(this) + 1);
        for (Object item : found) {
            Membership membership = (Membership) item;
            HITS.setOpaque(membership, (long) HITS.getOpaque(membership) + 1);
            Subscriber subscriber = membership.subscriber;
            if (membership.whole || subscriber.accepts(slot)) {
                subscriber.deliver(slot, probe);
            }
        }
    }

    /** A header with several values (rare): every member's filter is asked, as without an index. */
    private void deliverEach(MessageSlot slot, HandlerProbe probe) {
        for (Membership membership : members) {
            Subscriber subscriber = membership.subscriber;
            if (subscriber.accepts(slot)) {
                subscriber.deliver(slot, probe);
            }
        }
    }
}
