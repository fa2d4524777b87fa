package io.ringbus.core.internal;

import io.ringbus.core.DropReason;
import io.ringbus.core.Message;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The members of one queue group for one subject; each message goes to one active member.
 *
 * <p>Members may be served by different event loops, so the choice must be the same on every
 * loop without any coordination: member {@code sequence % n}, delivered only by the loop that
 * serves it. If that member has just been unsubscribed (the route is rebuilt, but messages
 * already in the ring carry the old one), its loop falls back to another active member it serves;
 * when it serves none, the message is not delivered to this group, as in NATS, and is counted as
 * {@link io.ringbus.core.DropReason#QUEUE_GROUP_MEMBER_LEFT}.
 *
 * <p>When a member has a filter, the message goes to the first member from {@code sequence % n}
 * on whose filter takes it: filters are pure functions of the message, so every loop picks the
 * same one, and each member's rejections are counted by its own loop only. When no member takes
 * it, it is counted once as {@link DropReason#FILTERED_BY_EVERY_MEMBER}.
 *
 * <p>A group whose members are all {@link PublisherSubscriber}s is served by the publishing
 * threads instead ({@link #deliverDirect}): they take members in turn from a shared counter.
 */
final class QueueGroupRoute {
    private final Subscriber[] members;
    private final AtomicInteger next = new AtomicInteger();
    /** Whether some member has a filter: then the choice takes filters into account. */
    private final boolean filtered;

    QueueGroupRoute(Subscriber[] members) {
        this.members = members;
        boolean any = false;
        for (Subscriber member : members) {
            any |= member.filter != null;
        }
        this.filtered = any;
    }

    /** @return the group's name */
    String name() {
        return members[0].options().queueGroup();
    }

    /** Called by every event loop for each message of the route; delivers on the chosen member's loop. */
    void deliver(MessageSlot slot, long sequence, int loop, HandlerProbe probe) {
        Subscriber[] members = this.members;
        int n = members.length;
        int chosen = n == 1 ? 0 : (int) (sequence % n);
        if (filtered) {
            deliverFiltered(slot, chosen, loop, probe);
            return;
        }
        Subscriber member = members[chosen];
        if (member.loopIndex() != loop || member.deliver(slot, probe)) {
            return;
        }
        deliverSlowPath(member, slot, chosen, loop, probe);
    }

    /** Every loop: the first member from {@code start} whose filter takes the message gets it. */
    private void deliverFiltered(MessageSlot slot, int start, int loop, HandlerProbe probe) {
        Subscriber[] members = this.members;
        int n = members.length;
        for (int i = 0; i < n; i++) {
            int index = (start + i) % n;
            Subscriber member = members[index];
            boolean taken = member.loopIndex() == loop ? member.accepts(slot)
                    : member.takes(slot);
            if (taken) {
                if (member.loopIndex() == loop && !member.deliver(slot, probe)) {
                    deliverSlowPath(member, slot, index, loop, probe);
                }
                return;
            }
        }
        Subscriber first = members[start];
        if (first.loopIndex() == loop) {
            first.broker.countDrop(first, DropReason.FILTERED_BY_EVERY_MEMBER, 1);
        }
    }

    private void deliverSlowPath(Subscriber gone, MessageSlot slot, int chosen, int loop, HandlerProbe probe) {
        Subscriber[] members = this.members;
        int n = members.length;
        for (int i = 1; i < n; i++) {
            Subscriber other = members[(chosen + i) % n];
            if (other.loopIndex() == loop && other.takes(slot) && other.deliver(slot, probe)) {
                return;
            }
        }
        gone.broker.countDrop(gone, gone.isShutdown() ? DropReason.SHUTDOWN : DropReason.QUEUE_GROUP_MEMBER_LEFT, 1);
    }

    /** Any publishing thread: hands the message to one active member (all are PublisherSubscribers). */
    void deliverDirect(Message message) {
        Subscriber[] members = this.members;
        int n = members.length;
        int chosen = n == 1 ? 0 : Math.floorMod(next.getAndIncrement(), n);
        boolean anyTook = false;
        for (int i = 0; i < n; i++) {
            Subscriber member = members[(chosen + i) % n];
            if (member.filter != null && !member.accepts(message)) {
                continue;
            }
            anyTook = true;
            if (((PublisherSubscriber) member).deliverDirect(message)) {
                return;
            }
        }
        Subscriber gone = members[chosen];
        if (!anyTook) {
            gone.broker.countDrop(gone, DropReason.FILTERED_BY_EVERY_MEMBER, 1);
            return;
        }
        gone.broker.countDrop(gone, gone.isShutdown() ? DropReason.SHUTDOWN : DropReason.QUEUE_GROUP_MEMBER_LEFT, 1);
    }
}
