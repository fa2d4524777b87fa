package io.ringbus.bench.seed;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The textbook event bus the seed article starts from: a {@link ReentrantLock} around a bounded
 * {@link ArrayDeque}; publishers lock, wait while it is full, add, unlock; one dispatch thread
 * locks, takes one message, unlocks and calls the subject's subscribers inline. Each message
 * takes two deque entries (subject, then event), added and removed under the same lock, so no
 * envelope is allocated.
 */
final class LockQueueContender implements Contender {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private final ArrayDeque<Object> queue = new ArrayDeque<>(2 * RingCapacity.SLOTS);
    private int messages;
    private boolean closing;
    private Map<String, SeedSubscriber[]> routes;
    private Thread dispatcher;

    @Override
    public String name() {
        return ContenderKind.LOCK_QUEUE.label();
    }

    @Override
    public boolean keepsProducerOrder() {
        return true;
    }

    @Override
    public void start(SeedTopology topology) {
        routes = new HashMap<>();
        for (int s = 0; s < topology.subjects().length; s++) {
            routes.put(topology.subjects()[s], topology.subscribers()[s]);
        }
        dispatcher = Thread.ofPlatform().name("lock-queue-dispatch").daemon(true).start(this::dispatchLoop);
    }

    @Override
    public void publish(String subject, SeedEvent event) {
        lock.lock();
        try {
            while (messages == RingCapacity.SLOTS) {
                notFull.awaitUninterruptibly();
            }
            queue.addLast(subject);
            queue.addLast(event);
            messages++;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    private void dispatchLoop() {
        while (true) {
            String subject;
            SeedEvent event;
            lock.lock();
            try {
                while (messages == 0 && !closing) {
                    notEmpty.awaitUninterruptibly();
                }
                if (messages == 0) {
                    return;
                }
                subject = (String) queue.pollFirst();
                event = (SeedEvent) queue.pollFirst();
                messages--;
                notFull.signal();
            } finally {
                lock.unlock();
            }
            for (SeedSubscriber subscriber : routes.get(subject)) {
                subscriber.onEvent(event);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        lock.lock();
        try {
            closing = true;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
        dispatcher.join();
    }
}
