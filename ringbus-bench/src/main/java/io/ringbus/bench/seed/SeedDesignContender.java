package io.ringbus.bench.seed;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.ringbus.core.Scope;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The seed article's broker, rebuilt from its description: a multi-producer Disruptor of 16,384
 * slots; publishers claim a slot and copy the event's fields into it; one router thread looks up
 * the copy-on-write subscriber list of the event's type in a map and, when there is more than one
 * subscriber, submits one task per subscriber to a fixed pool of one thread per core; each
 * subscriber then queues the event on its own single-thread executor. Publishing checks that the
 * type is registered, subscribing checks the scope.
 *
 * <p>Its flaws are kept, because they are what the comparison is about:
 * <ul>
 *   <li>two hand-offs per subscriber per event (a task on the pool, then a task on the
 *       subscriber's executor), each allocating a task and passing a locked, unbounded queue;</li>
 *   <li>no backpressure past the ring: the pool's and the subscribers' queues grow while the
 *       subscribers fall behind, and publishers never wait for them;</li>
 *   <li>per-subscriber order is not kept: two pool threads may hand consecutive events of one
 *       subscriber to its executor in the opposite order. The runner counts such reorderings
 *       instead of failing the round ({@link #keepsProducerOrder()} is {@code false}).</li>
 * </ul>
 *
 * <p>One deliberate departure: the article's pool task captures the ring slot itself, which the
 * ring reuses as soon as the router moves on, so a subscriber may read a later event's fields.
 * Here the router copies the payload reference out of the slot before submitting, so that the
 * count and order checks measure the design's throughput rather than report that race.
 */
final class SeedDesignContender implements Contender {
    /** A ring slot: the fields the article's publisher copies in. */
    static final class Slot {
        String type;
        SeedEvent payload;
    }

    /** A subscriber with its own single-thread executor, as in the article. */
    static final class Endpoint {
        private final SeedSubscriber target;
        private final Scope scope;
        private final ExecutorService exec;

        Endpoint(SeedSubscriber target, Scope scope, String threadName) {
            this.target = target;
            this.scope = scope;
            this.exec = Executors.newSingleThreadExecutor(Thread.ofPlatform().name(threadName).daemon(true).factory());
        }

        /** Queues the event on this subscriber's thread; never blocks the caller. */
        void onEvent(SeedEvent event) {
            exec.submit(() -> target.onEvent(event));
        }

        void close() throws InterruptedException {
            exec.shutdown();
            if (!exec.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("subscriber executor did not stop within 1 minute");
            }
        }
    }

    /** An immutable list, replaced as a whole when a subscriber joins. */
    static final class SubscriberList {
        volatile List<Endpoint> list = List.of();
    }

    private final Map<String, Scope> registry = new ConcurrentHashMap<>();
    private final Map<String, SubscriberList> subscribers = new ConcurrentHashMap<>();
    private final ReentrantLock subscribeLock = new ReentrantLock();
    private final List<Endpoint> endpoints = new ArrayList<>();
    private ExecutorService dispatchPool;
    private Disruptor<Slot> disruptor;
    private RingBuffer<Slot> ring;

    @Override
    public String name() {
        return ContenderKind.SEED_DESIGN.label();
    }

    @Override
    public boolean keepsProducerOrder() {
        return false;
    }

    @Override
    public void start(SeedTopology topology) {
        dispatchPool = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(),
                Thread.ofPlatform().name("seed-dispatch-", 0).daemon(true).factory());
        for (int s = 0; s < topology.subjects().length; s++) {
            String type = topology.subjects()[s];
            registry.put(type, Scope.PRIVATE);
            for (int k = 0; k < topology.subscribers()[s].length; k++) {
                subscribe(type, new Endpoint(topology.subscribers()[s][k], Scope.PRIVATE, "seed-sub-" + s + "-" + k));
            }
        }
        disruptor = new Disruptor<>(Slot::new, RingCapacity.SLOTS,
                Thread.ofPlatform().name("seed-router-", 0).daemon(true).factory(),
                ProducerType.MULTI, DisruptorWaitStrategy.matching(topology.waitStrategy()));
        disruptor.handleEventsWith((slot, sequence, endOfBatch) -> route(slot));
        ring = disruptor.start();
    }

    private void subscribe(String type, Endpoint endpoint) {
        Scope scope = registry.get(type);
        if (scope == null || !endpoint.scope.includes(scope)) {
            throw new IllegalArgumentException("cannot subscribe: type=" + type + ", scope=" + endpoint.scope);
        }
        subscribeLock.lock();
        try {
            SubscriberList holder = subscribers.computeIfAbsent(type, t -> new SubscriberList());
            List<Endpoint> copy = new ArrayList<>(holder.list);
            copy.add(endpoint);
            holder.list = List.copyOf(copy);
            endpoints.add(endpoint);
        } finally {
            subscribeLock.unlock();
        }
    }

    private void route(Slot slot) {
        SubscriberList holder = subscribers.get(slot.type);
        if (holder == null) {
            return;
        }
        List<Endpoint> subs = holder.list;
        if (subs.isEmpty()) {
            return;
        }
        SeedEvent payload = slot.payload; // copied out: the slot is reused once this method returns
        if (subs.size() == 1) {
            subs.getFirst().onEvent(payload);
        } else {
            for (Endpoint sub : subs) {
                dispatchPool.submit(() -> sub.onEvent(payload));
            }
        }
    }

    @Override
    public void publish(String subject, SeedEvent event) {
        if (!registry.containsKey(subject)) {
            throw new IllegalArgumentException("unregistered event type: type=" + subject);
        }
        long sequence = ring.next();
        try {
            Slot slot = ring.get(sequence);
            slot.type = subject;
            slot.payload = event;
        } finally {
            ring.publish(sequence);
        }
    }

    @Override
    public void close() throws InterruptedException {
        disruptor.shutdown();
        dispatchPool.shutdown();
        if (!dispatchPool.awaitTermination(1, TimeUnit.MINUTES)) {
            throw new IllegalStateException("dispatch pool did not stop within 1 minute");
        }
        for (Endpoint endpoint : endpoints) {
            endpoint.close();
        }
    }
}
