package io.ringbus.core.internal;

/**
 * The members of one queue group for one subject. Each message goes to one active member, chosen
 * round-robin. Used only by the single event loop that serves the group, so the cursor needs no
 * synchronization.
 */
final class QueueGroupRoute {
    private final Subscriber[] members;
    private int next;

    QueueGroupRoute(Subscriber[] members) {
        this.members = members;
    }

    /** Hands the message to the next active member; called only on the group's event loop. */
    void deliver(MessageSlot slot, HandlerProbe probe) {
        Subscriber[] members = this.members;
        int n = members.length;
        int start = next;
        for (int i = 0; i < n; i++) {
            int index = start + i;
            if (index >= n) {
                index -= n;
            }
            if (members[index].deliver(slot, probe)) {
                next = index + 1 == n ? 0 : index + 1;
                return;
            }
        }
    }
}
