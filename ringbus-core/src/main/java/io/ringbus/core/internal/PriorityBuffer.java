package io.ringbus.core.internal;

import io.ringbus.core.Message;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The messages waiting for one WORKER or VIRTUAL subscriber, by {@linkplain Message#priority()
 * priority}: a preallocated bounded queue for the default priority, and a queue per other priority,
 * made when the first message of that priority arrives (linked, so that its memory follows its use;
 * a subscriber that only gets default-priority messages has the one array queue). The caller bounds
 * the total ({@link BufferedSubscriber}'s count), which every queue can hold.
 *
 * <p>One producer, the subscriber's event loop, offers; drainers poll concurrently. A poll takes
 * the highest priority waiting, first in, first out within a priority, except that while several
 * priorities exist, every {@link Message#PRIORITY_SHARE}-th poll takes the lowest priority waiting,
 * so that a constant stream of urgent messages cannot starve the others.
 */
final class PriorityBuffer {
    private static final int DEFAULT_ONLY = 1 << Message.DEFAULT_PRIORITY;

    private final MpmcAtomicArrayQueue<Message> standard;
    @SuppressWarnings({"unchecked", "rawtypes"}) // no generic array creation in Java
    private final Queue<Message>[] levels = new Queue[Message.MAX_PRIORITY + 1];
    /**
     * Bit {@code p} is set once {@code levels[p]} exists. Written by the event loop only, after the
     * array store (a volatile write: a drainer that reads the bit sees the queue).
     */
    private volatile int present = DEFAULT_ONLY;
    private final AtomicInteger polls = new AtomicInteger();

    PriorityBuffer(int capacity) {
        this.standard = new MpmcAtomicArrayQueue<>(capacity);
        levels[Message.DEFAULT_PRIORITY] = standard;
    }

    /** Event loop only, with room (the caller's count): appends {@code message} at {@code priority}. */
    void offer(Message message, int priority) {
        if (priority == Message.DEFAULT_PRIORITY) {
            standard.offer(message);
            return;
        }
        Queue<Message> queue = levels[priority];
        if (queue == null) {
            queue = new ConcurrentLinkedQueue<>();
            levels[priority] = queue;
            present = present | 1 << priority;
        }
        queue.offer(message);
    }

    /** Any thread: the next message to hand over, or {@code null} when none waits. */
    Message poll() {
        int mask = present;
        if (mask == DEFAULT_ONLY) {
            return standard.poll();
        }
        return pollSlowPath(mask);
    }

    private Message pollSlowPath(int mask) {
        if (polls.incrementAndGet() % Message.PRIORITY_SHARE == 0) {
            Message lowest = pollLowest(mask);
            if (lowest != null) {
                return lowest;
            }
        }
        for (int p = Message.MAX_PRIORITY; p >= 0; p--) {
            if ((mask & 1 << p) != 0) {
                Message message = levels[p].poll();
                if (message != null) {
                    return message;
                }
            }
        }
        return null;
    }

    /** Any thread: the oldest message of the lowest priority waiting, or {@code null}. */
    Message pollLowest() {
        return pollLowest(present);
    }

    private Message pollLowest(int mask) {
        for (int p = 0; p <= Message.MAX_PRIORITY; p++) {
            if ((mask & 1 << p) != 0) {
                Message message = levels[p].poll();
                if (message != null) {
                    return message;
                }
            }
        }
        return null;
    }

    /** @return the lowest priority with a message waiting, or -1 when none waits */
    int lowestWaiting() {
        int mask = present;
        for (int p = 0; p <= Message.MAX_PRIORITY; p++) {
            if ((mask & 1 << p) != 0 && !levels[p].isEmpty()) {
                return p;
            }
        }
        return -1;
    }

    /** @param priority a priority in use @return its oldest message, or {@code null} */
    Message pollAt(int priority) {
        Queue<Message> queue = levels[priority];
        return queue == null ? null : queue.poll();
    }

    /** @return whether no message waits */
    boolean isEmpty() {
        return present == DEFAULT_ONLY ? standard.isEmpty() : lowestWaiting() < 0;
    }
}
