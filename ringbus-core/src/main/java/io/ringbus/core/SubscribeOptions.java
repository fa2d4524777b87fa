package io.ringbus.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How a subscription receives its messages. Immutable: every setter returns a new instance, so
 * {@link #defaults()} may be shared freely.
 *
 * <p>Defaults: {@link ExecutionMode#EVENT_LOOP}, ordered, maxConcurrency 16, bufferSize 8,192,
 * {@link OverflowPolicy#BLOCK}, no queue group, the broker's execute-time limit.
 */
public final class SubscribeOptions {
    /** Largest accepted {@link #bufferSize(int)}. */
    public static final int MAX_BUFFER_SIZE = 1 << 24;
    /** Largest accepted {@link #maxConcurrency(int)}. */
    public static final int MAX_CONCURRENCY = 65_536;

    private static final SubscribeOptions DEFAULTS =
            new SubscribeOptions(ExecutionMode.EVENT_LOOP, true, 16, 8_192, OverflowPolicy.BLOCK, null, null, null, null);

    private final ExecutionMode mode;
    private final boolean ordered;
    private final int maxConcurrency;
    private final int bufferSize;
    private final OverflowPolicy overflow;
    private final String queueGroup;
    private final Duration maxExecuteTime;
    private final DurableOptions durable;
    private final MessageFilter filter;

    private SubscribeOptions(ExecutionMode mode, boolean ordered, int maxConcurrency, int bufferSize,
                             OverflowPolicy overflow, String queueGroup, Duration maxExecuteTime,
                             DurableOptions durable, MessageFilter filter) {
        this.mode = mode;
        this.ordered = ordered;
        this.maxConcurrency = maxConcurrency;
        this.bufferSize = bufferSize;
        this.overflow = overflow;
        this.queueGroup = queueGroup;
        this.maxExecuteTime = maxExecuteTime;
        this.durable = durable;
        this.filter = filter;
    }

    /** @return the default options */
    public static SubscribeOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param mode where the handler runs
     * @return options with that mode
     */
    public SubscribeOptions mode(ExecutionMode mode) {
        Objects.requireNonNull(mode, "mode");
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                durable, filter);
    }

    /**
     * @param ordered {@code true}: one message at a time, in publish order per publisher thread;
     *                {@code false}: up to {@link #maxConcurrency()} at once (WORKER, VIRTUAL only)
     * @return options with that ordering
     */
    public SubscribeOptions ordered(boolean ordered) {
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                durable, filter);
    }

    /**
     * @param maxConcurrency handler calls at once when unordered, 1..{@value #MAX_CONCURRENCY}
     * @return options with that limit
     * @throws IllegalArgumentException naming the value when out of range
     */
    public SubscribeOptions maxConcurrency(int maxConcurrency) {
        if (maxConcurrency < 1 || maxConcurrency > MAX_CONCURRENCY) {
            throw new IllegalArgumentException("maxConcurrency must be in 1.." + MAX_CONCURRENCY
                    + ": maxConcurrency=" + maxConcurrency);
        }
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                durable, filter);
    }

    /**
     * @param bufferSize per-subscriber buffer of WORKER and VIRTUAL subscriptions,
     *                   2..{@value #MAX_BUFFER_SIZE}
     * @return options with that size
     * @throws IllegalArgumentException naming the value when out of range
     */
    public SubscribeOptions bufferSize(int bufferSize) {
        if (bufferSize < 2 || bufferSize > MAX_BUFFER_SIZE) {
            throw new IllegalArgumentException("bufferSize must be in 2.." + MAX_BUFFER_SIZE + ": bufferSize=" + bufferSize);
        }
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                durable, filter);
    }

    /**
     * @param overflow what to do when the buffer is full
     * @return options with that policy
     */
    public SubscribeOptions overflow(OverflowPolicy overflow) {
        Objects.requireNonNull(overflow, "overflow");
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                durable, filter);
    }

    /**
     * @param queueGroup name of a queue group: each message goes to one member of the group;
     *                   {@code null} for none; otherwise a non-empty name without whitespace
     *                   or control characters (as NATS queue names)
     * @return options with that group
     * @throws IllegalArgumentException naming the value when empty or containing whitespace
     */
    public SubscribeOptions queueGroup(String queueGroup) {
        if (queueGroup != null) {
            boolean bad = queueGroup.isEmpty();
            for (int i = 0; i < queueGroup.length() && !bad; i++) {
                char c = queueGroup.charAt(i);
                bad = c <= ' ' || c == 127;
            }
            if (bad) {
                throw new IllegalArgumentException("queueGroup must be non-empty without whitespace: queueGroup='"
                        + queueGroup + "'");
            }
        }
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                durable, filter);
    }

    /**
     * @param maxExecuteTime how long one handler call may run before the watchdog warns;
     *                       {@code null} for the broker's limit for this mode
     * @return options with that limit
     * @throws IllegalArgumentException when not positive
     */
    public SubscribeOptions maxExecuteTime(Duration maxExecuteTime) {
        if (maxExecuteTime != null && (maxExecuteTime.isNegative() || maxExecuteTime.isZero())) {
            throw new IllegalArgumentException("maxExecuteTime must be positive: maxExecuteTime=" + maxExecuteTime);
        }
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                durable, filter);
    }

    /**
     * Makes the subscription durable with the default {@link DurableOptions#named(String)}.
     *
     * @param name the consumer's durable name
     * @return options with that consumer
     * @see #durable(DurableOptions)
     */
    public SubscribeOptions durable(String name) {
        return durable(DurableOptions.named(name));
    }

    /**
     * Makes the subscription durable: it reads the stream of the durable subject pattern that covers
     * its pattern ({@link Broker#registerSubject(String, Scope, Durability)}), at least once, resuming
     * after a restart from the last acknowledged message. Mode WORKER or VIRTUAL: the handler's
     * return acknowledges the message. {@code null} makes it a live subscription again.
     *
     * @param options the consumer, or {@code null}
     * @return options with that consumer
     */
    public SubscribeOptions durable(DurableOptions options) {
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                options, filter);
    }

    /**
     * Gives the subscription a filter: a message routed to it is tested once, on the thread that
     * routes it (an event loop, or the publishing thread for {@link ExecutionMode#PUBLISHER}),
     * before it takes a place in the subscription's buffer; a rejected message costs no buffer
     * space, no wake-up and no overflow, and is counted ({@link Subscription#filtered()}). In a
     * queue group, a message goes to one member whose filter accepts it; when none does, it is
     * counted as {@link DropReason#FILTERED_BY_EVERY_MEMBER}. A filter must be a pure function of
     * the message: every event loop of a queue group must reach the same answer.
     *
     * @param filter the filter ({@link MessageFilter#headers}, {@link MessageFilter#body},
     *               {@link MessageFilter#of}), or {@code null} for none
     * @return options with that filter
     */
    public SubscribeOptions filter(MessageFilter filter) {
        return new SubscribeOptions(mode, ordered, maxConcurrency, bufferSize, overflow, queueGroup, maxExecuteTime,
                durable, filter);
    }

    /** @return the filter, or {@code null} when every message is taken */
    public MessageFilter filter() {
        return filter;
    }

    /** @return the durable consumer, or {@code null} for a live subscription */
    public DurableOptions durable() {
        return durable;
    }

    /** @return where the handler runs */
    public ExecutionMode mode() {
        return mode;
    }

    /** @return whether messages are handled one at a time in order */
    public boolean ordered() {
        return ordered;
    }

    /** @return handler calls at once when unordered */
    public int maxConcurrency() {
        return maxConcurrency;
    }

    /** @return the per-subscriber buffer size (WORKER and VIRTUAL) */
    public int bufferSize() {
        return bufferSize;
    }

    /** @return the overflow policy (WORKER and VIRTUAL) */
    public OverflowPolicy overflow() {
        return overflow;
    }

    /** @return the queue group, or {@code null} */
    public String queueGroup() {
        return queueGroup;
    }

    /** @return the watchdog limit for this subscription, or {@code null} for the broker's */
    public Duration maxExecuteTime() {
        return maxExecuteTime;
    }

    @Override
    public String toString() {
        return "SubscribeOptions{mode=" + mode + ", ordered=" + ordered + ", maxConcurrency=" + maxConcurrency
                + ", bufferSize=" + bufferSize + ", overflow=" + overflow + ", queueGroup=" + queueGroup
                + ", maxExecuteTime=" + maxExecuteTime + ", durable=" + durable
                + (filter == null ? "" : ", filter=" + filter.text()) + '}';
    }
}
