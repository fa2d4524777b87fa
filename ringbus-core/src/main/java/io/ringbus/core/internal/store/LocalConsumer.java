package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StreamConsumer;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One handle on a local durable consumer: fetches on behalf of itself, so closing it puts back what
 * it held. Thread-safe (the state is).
 */
final class LocalConsumer implements StreamConsumer {
    private final ConsumerState state;
    private volatile boolean closed;

    LocalConsumer(ConsumerState state) {
        this.state = state;
    }

    /** @return whether {@link #close} was called: a fetch in progress on this handle returns */
    boolean isClosed() {
        return closed;
    }

    /** @return the consumer this handle shares (tests) */
    ConsumerState state() {
        return state;
    }

    @Override
    public ConsumerConfig config() {
        return state.config();
    }

    @Override
    public List<StoredMessage> fetch(int max, Duration wait) throws InterruptedException {
        if (max < 1) {
            throw new IllegalArgumentException("max must be >= 1: max=" + max);
        }
        Objects.requireNonNull(wait, "wait");
        if (closed) {
            throw new IllegalStateException("consumer handle closed: " + state.config().durableName());
        }
        return state.fetch(this, max, Math.max(0, wait.toNanos()));
    }

    @Override
    public void ack(StoredMessage message) {
        state.ack(message);
    }

    @Override
    public void nak(StoredMessage message, Duration delay) {
        state.nak(message, Math.max(0, delay.toNanos()));
    }

    @Override
    public void term(StoredMessage message) {
        state.ack(message);
    }

    @Override
    public ConsumerStats stats() {
        return state.stats();
    }

    /** Puts back what this handle holds and wakes a fetch in progress on it, which returns. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            state.release(this);
        }
    }
}
