package io.ringbus.core.internal;

import io.ringbus.core.ConsumerStats;
import io.ringbus.core.DurableOptions;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.ErrorHandler;
import io.ringbus.core.Headers;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.Scope;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StreamConsumer;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A durable subscription: its own delivery thread pulls from a {@link StreamConsumer}, calls the
 * handler, and acknowledges when the handler returns. A handler that throws gets the message again
 * after a doubling delay; after {@link DurableOptions#maxDeliver()} tries the message is published
 * to the dead-letter subject (headers {@code Ringbus-Stream}, {@code Ringbus-Sequence},
 * {@code Ringbus-Consumer}, {@code Ringbus-Error}) and given up. A dead letter carries the stream's
 * scope: only subscribers of that scope or above receive it, and it crosses the federation only
 * when the stream's scope may.
 *
 * <p>Ordered: the delivery thread calls the handler itself, one message at a time, in stream order
 * (a virtual thread for VIRTUAL, a platform thread otherwise; never an event loop). Unordered: up to
 * {@link SubscribeOptions#maxConcurrency()} calls at once on the worker pool or virtual threads.
 */
final class DurableSubscription implements Subscription {
    private static final Logger LOG = LoggerFactory.getLogger(DurableSubscription.class);
    private static final Duration FETCH_WAIT = Duration.ofMillis(100);
    private static final int MAX_BATCH = 256;

    private final RingBroker broker;
    private final long id;
    private final String pattern;
    private final Scope scope;
    private final SubscribeOptions options;
    private final DurableOptions durable;
    private final MessageHandler handler;
    private final StreamConsumer consumer;
    private final ErrorHandler errorHandler;
    private final ExecutorService executor;
    private final Semaphore permits;
    private final String deadLetterSubject;
    /** The scope of the stream's data: its dead letters carry it, not the dead-letter subject's default. */
    private final Scope streamScope;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();
    private final Thread thread;
    private volatile Runnable onEnd;
    private volatile long limit = Long.MAX_VALUE;
    private volatile boolean active = true;

    DurableSubscription(RingBroker broker, long id, String pattern, Scope scope, SubscribeOptions options,
                        MessageHandler handler, StreamConsumer consumer, String stream, Scope streamScope,
                        ErrorHandler errorHandler, ExecutorService executor) {
        this.broker = broker;
        this.id = id;
        this.pattern = pattern;
        this.scope = scope;
        this.options = options;
        this.durable = options.durable();
        this.handler = handler;
        this.consumer = consumer;
        this.errorHandler = errorHandler;
        this.executor = options.ordered() ? null : executor;
        this.permits = options.ordered() ? null : new Semaphore(options.maxConcurrency());
        this.deadLetterSubject = durable.deadLetterSubjectFor(stream);
        this.streamScope = streamScope;
        String name = "ringbus-durable-" + durable.name() + "-" + id;
        Thread.Builder builder = options.mode() == ExecutionMode.VIRTUAL ? Thread.ofVirtual().name(name)
                : Thread.ofPlatform().name(name).daemon(true);
        this.thread = builder.unstarted(this::run);
    }

    /** Sets what runs once when the subscription ends (its meters' removal). */
    void onEnd(Runnable action) {
        this.onEnd = action;
    }

    void start() {
        thread.start();
    }

    private void run() {
        int batchSize = Math.min(MAX_BATCH, durable.maxAckPending());
        while (active) {
            List<StoredMessage> batch;
            try {
                batch = consumer.fetch(batchSize, FETCH_WAIT);
            } catch (InterruptedException e) {
                break;
            } catch (IllegalStateException e) {
                break; // the consumer or its store closed
            } catch (RuntimeException e) {
                LOG.warn("durable '{}': fetch failed, retrying: {}", durable.name(), e.toString());
                sleepQuietly(FETCH_WAIT.toMillis());
                continue;
            }
            for (StoredMessage message : batch) {
                if (!active) {
                    consumer.nak(message, Duration.ZERO);
                    continue;
                }
                if (executor == null) {
                    handle(message);
                } else {
                    dispatch(message);
                }
            }
        }
    }

    private void dispatch(StoredMessage message) {
        try {
            // Timed: unsubscribe does not interrupt this thread (see there), so a pool full of
            // handlers that never return must not keep it here.
            while (!permits.tryAcquire(FETCH_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                if (!active) {
                    consumer.nak(message, Duration.ZERO);
                    return;
                }
            }
        } catch (InterruptedException e) {
            consumer.nak(message, Duration.ZERO);
            active = false;
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    handle(message);
                } finally {
                    permits.release();
                }
            });
        } catch (RejectedExecutionException e) {
            permits.release();
            consumer.nak(message, Duration.ZERO);
        }
    }

    private void handle(StoredMessage message) {
        try {
            handler.onMessage(message);
        } catch (Throwable error) {
            failed(message, error);
            if (error instanceof Error e && !(error instanceof AssertionError)) {
                throw e;
            }
            return;
        }
        consumer.ack(message);
        if (delivered.incrementAndGet() >= limit) {
            unsubscribe();
        }
    }

    private void failed(StoredMessage message, Throwable error) {
        try {
            errorHandler.onError(error, message, this);
        } catch (RuntimeException e) {
            LOG.warn("error handler threw: {}", e.toString());
        }
        if (message.deliveries() < durable.maxDeliver()) {
            consumer.nak(message, redeliveryDelay(message.deliveries()));
            return;
        }
        try {
            Headers headers = Headers.builder().add("Ringbus-Stream", message.stream())
                    .add("Ringbus-Sequence", Long.toString(message.sequence()))
                    .add("Ringbus-Consumer", durable.name())
                    .add("Ringbus-Subject", message.subject())
                    .add("Ringbus-Error", String.valueOf(error).replace('\r', ' ').replace('\n', ' ')).build();
            broker.publishOriginated(streamScope, deadLetterSubject, headers, message.payload());
            deadLettered.incrementAndGet();
            consumer.term(message);
        } catch (RuntimeException e) {
            LOG.error("durable '{}': dead-lettering sequence {} to '{}' failed, redelivering: {}", durable.name(),
                    message.sequence(), deadLetterSubject, e.toString());
            consumer.nak(message, durable.maxRedeliveryDelay());
        }
    }

    /** @return the wait before delivery {@code deliveries + 1}: the first delay, doubled per try, capped */
    Duration redeliveryDelay(int deliveries) {
        Duration delay = durable.redeliveryDelay();
        for (int i = 1; i < deliveries && delay.compareTo(durable.maxRedeliveryDelay()) < 0; i++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(durable.maxRedeliveryDelay()) > 0 ? durable.maxRedeliveryDelay() : delay;
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the store's counters of this subscription's consumer */
    ConsumerStats consumerStats() {
        return consumer.stats();
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public String pattern() {
        return pattern;
    }

    @Override
    public Scope scope() {
        return scope;
    }

    @Override
    public SubscribeOptions options() {
        return options;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public long delivered() {
        return delivered.get();
    }

    /** @return messages handed out and not yet acknowledged */
    @Override
    public long pending() {
        return consumer.stats().ackPending();
    }

    /** @return messages given up to the dead-letter subject */
    @Override
    public long dropped() {
        return deadLettered.get();
    }

    @Override
    public void unsubscribe() {
        if (!active) {
            return;
        }
        active = false;
        // Closing the handle wakes a fetch in progress and puts back what was not handled; the
        // delivery thread is never interrupted: it may be reading the stream's log, and an interrupt
        // during a FileChannel read closes the channel for every reader of the stream (found by
        // DeadLetterPowerCutTest: the reader then spun under the consumer's lock and close hung).
        consumer.close();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        broker.durableUnsubscribed(this);
        Runnable end = onEnd;
        if (end != null) {
            end.run();
        }
    }

    @Override
    public void unsubscribeAfter(long maxMessages) {
        if (maxMessages < 1) {
            throw new IllegalArgumentException("maxMessages must be >= 1: maxMessages=" + maxMessages);
        }
        limit = maxMessages;
        if (delivered.get() >= maxMessages) {
            unsubscribe();
        }
    }

    @Override
    public String toString() {
        return "DurableSubscription{id=" + id + ", pattern=" + pattern + ", durable=" + durable.name() + '}';
    }
}
