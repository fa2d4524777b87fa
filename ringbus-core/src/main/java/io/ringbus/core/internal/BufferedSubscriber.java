package io.ringbus.core.internal;

import io.ringbus.core.Backoff;
import io.ringbus.core.DropReason;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.OverflowPolicy;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A WORKER or VIRTUAL subscriber: its event loop copies each message out of the ring into a
 * bounded buffer of exactly {@code bufferSize} messages, and drainers run by an {@link Executor}
 * (the worker pool, or a new virtual thread per activation) hand them to the handler.
 *
 * <p>Ordered: at most one drainer at a time, so messages are handled one by one in ring order.
 * Unordered: up to {@code maxConcurrency} drainers. Higher {@linkplain Message#priority() priorities}
 * are handed over first ({@link PriorityBuffer}). A full buffer applies the overflow policy on
 * the event loop: BLOCK waits there (backpressure to the ring, then to publishers), the others
 * drop and count. A slow subscriber delays others only under BLOCK, once its buffer is full.
 */
final class BufferedSubscriber extends Subscriber {
    /** Messages a worker drainer handles before giving its pool thread back (fairness). */
    private static final int WORKER_BATCH = 256;
    /** The event loop waiting for room in a BLOCK buffer: parks 1 us, doubling to 100 us. */
    private static final Backoff BLOCK_PARK_NANOS = new Backoff(1_000, 100_000);

    private final PriorityBuffer queue;
    private final int capacity;
    private final int maxDrainers;
    private final Executor executor;
    private final boolean yieldAfterBatch;
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicInteger drainers = new AtomicInteger();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final Runnable drain = this::drain;

    BufferedSubscriber(RingBroker broker, long id, SubjectPattern pattern, Scope scope, SubscribeOptions options,
                       MessageHandler handler, int loopIndex, long maxExecuteNanos, Executor executor,
                       boolean yieldAfterBatch, PatternStats stats) {
        super(broker, id, pattern, scope, options, handler, loopIndex, maxExecuteNanos, stats);
        this.capacity = options.bufferSize();
        this.queue = new PriorityBuffer(capacity);
        this.maxDrainers = options.ordered() ? 1 : options.maxConcurrency();
        this.executor = executor;
        this.yieldAfterBatch = yieldAfterBatch;
    }

    @Override
    boolean deliver(MessageSlot slot, HandlerProbe probe) {
        if (!isActive()) {
            countIfShutdown(1);
            return false;
        }
        int priority = slot.priority();
        if (size.get() >= capacity && !overflowSlowPath(probe, slot, priority)) {
            return true;
        }
        // Only this subscriber's event loop offers, and size < capacity <= queue capacity: this succeeds.
        queue.offer(slot.copy(), priority);
        size.incrementAndGet();
        if (!isActive()) {
            // Retired meanwhile: its buffer may have been emptied before our offer.
            countIfShutdown(discardBuffered());
            return true;
        }
        startDrainer();
        return true;
    }

    /** @return {@code true} when the new message may now be enqueued */
    private boolean overflowSlowPath(HandlerProbe probe, MessageSlot slot, int priority) {
        OverflowPolicy policy = options().overflow();
        switch (policy) {
            case BLOCK -> {
                probe.enter(this, slot.subject);
                try {
                    long park = BLOCK_PARK_NANOS.initial();
                    while (size.get() >= capacity) {
                        if (!isActive() || broker.isHalted()) {
                            countIfShutdown(1);
                            return false;
                        }
                        LockSupport.parkNanos(park);
                        park = BLOCK_PARK_NANOS.next(park);
                    }
                } finally {
                    probe.exit();
                }
                return true;
            }
            case DROP_OLDEST -> {
                if (queue.pollLowest() != null) {
                    size.decrementAndGet();
                    drop(DropReason.OVERFLOW_DROP_OLDEST, 1);
                }
                return true;
            }
            case DROP_LOWEST_PRIORITY -> {
                int lowest = queue.lowestWaiting();
                if (lowest < 0) {
                    return true; // drained meanwhile: there is room
                }
                if (lowest < priority) {
                    // A drainer may have taken it meanwhile: then there is room without a drop.
                    if (queue.pollAt(lowest) != null) {
                        size.decrementAndGet();
                        drop(DropReason.OVERFLOW_DROP_LOWEST_PRIORITY, 1);
                    }
                    return true;
                }
                drop(DropReason.OVERFLOW_DROP_LOWEST_PRIORITY, 1);
                return false;
            }
            case DROP_NEWEST -> {
                drop(DropReason.OVERFLOW_DROP_NEWEST, 1);
                return false;
            }
            case DISCONNECT -> {
                drop(DropReason.SLOW_CONSUMER_DISCONNECT, 1);
                broker.slowConsumer(this);
                // Retiring discards the buffer; count it as dropped first.
                drop(DropReason.SLOW_CONSUMER_DISCONNECT, discardBuffered());
                retire();
                return false;
            }
            default -> throw new IllegalStateException("unknown overflow policy " + policy);
        }
    }

    private void drop(DropReason reason, long count) {
        if (count > 0) {
            dropped.addAndGet(count);
            broker.countDrop(this, reason, count);
        }
    }

    private void startDrainer() {
        for (;;) {
            int running = drainers.get();
            // Drainers busy in a handler cannot take the new message: start another, up to the limit.
            if (running >= maxDrainers) {
                return;
            }
            if (drainers.compareAndSet(running, running + 1)) {
                try {
                    executor.execute(drain);
                } catch (RejectedExecutionException closed) {
                    drainers.decrementAndGet();
                }
                return;
            }
        }
    }

    private void drain() {
        HandlerProbe probe = broker.watchdog().register(options().mode());
        try {
            int handled = 0;
            for (;;) {
                Message message = queue.poll();
                if (message == null) {
                    drainers.decrementAndGet();
                    // A message offered after our poll but before the decrement saw us still
                    // running and started nobody: look again (both sides use full fences).
                    if (queue.isEmpty() || !claimDrainer()) {
                        return;
                    }
                    continue;
                }
                size.decrementAndGet();
                // Claim a delivery first, so that unordered drainers never exceed unsubscribeAfter(n).
                long claim = claimed.incrementAndGet();
                if (!isActive() || claim > deliveryLimit) {
                    countIfShutdown(1);
                    checkDeliveryLimit(delivered.get());
                    continue;
                }
                handle(message, probe, claim);
                if (yieldAfterBatch && ++handled == WORKER_BATCH && !queue.isEmpty()) {
                    // Give the pool thread to other subscribers; keep our drainer slot.
                    executor.execute(drain);
                    return;
                }
            }
        } catch (RejectedExecutionException closed) {
            drainers.decrementAndGet();
        } finally {
            broker.watchdog().unregister(probe);
        }
    }

    private boolean claimDrainer() {
        for (;;) {
            int running = drainers.get();
            if (running >= maxDrainers) {
                return false;
            }
            if (drainers.compareAndSet(running, running + 1)) {
                return true;
            }
        }
    }

    /** @param claim this call's number, from 1: with a registry, calls 1, n + 1, 2n + 1, ... are timed */
    private void handle(Message message, HandlerProbe probe, long claim) {
        probe.enter(this, message.subject());
        PatternStats stats = this.stats;
        boolean timed = stats != null && ((claim - 1) & stats.latencySampleMask) == 0;
        long start = timed ? System.nanoTime() : 0;
        try {
            handler.onMessage(message);
        } catch (Throwable error) {
            broker.handlerFailed(error, message, this);
        } finally {
            probe.exit();
        }
        if (timed) {
            stats.recordHandler(options().mode(), System.nanoTime() - start);
        }
        checkDeliveryLimit(delivered.incrementAndGet());
    }

    private long discardBuffered() {
        long count = 0;
        while (queue.poll() != null) {
            size.decrementAndGet();
            count++;
        }
        return count;
    }

    @Override
    void onRetire() {
        countIfShutdown(discardBuffered());
    }

    /** @return whether nothing is buffered and no handler is running */
    boolean isIdle() {
        return size.get() == 0 && drainers.get() == 0;
    }

    @Override
    public long delivered() {
        return delivered.get();
    }

    @Override
    public long pending() {
        return size.get();
    }

    @Override
    public long dropped() {
        return dropped.get();
    }
}
