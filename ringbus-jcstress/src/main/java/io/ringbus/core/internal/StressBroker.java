package io.ringbus.core.internal;

import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Headers;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The one real {@link RingBroker} of a jcstress fork, and the subscribers the tests build on it.
 * Subscribers call back into their broker (the watchdog, drop counts, retire); building a broker
 * per test state would cost a ring and threads each, so the states share this one and never
 * register their subscribers with it: its event loop stays idle (BLOCKING wait) and does not
 * compete with the actors for the CPUs.
 *
 * <p>Thread-safe: the factories may be called from any thread.
 */
final class StressBroker {
    /** Started on first use, never closed: it lives as long as the fork. */
    static final RingBroker BROKER = (RingBroker) Broker.builder().name("jcstress").ringSize(64)
            .workerPoolSize(1).build();
    private static final SubjectPattern PATTERN = SubjectPattern.parse("stress.>");
    private static final long NO_LIMIT_NANOS = TimeUnit.HOURS.toNanos(1);

    private StressBroker() {
    }

    /**
     * A WORKER subscriber whose drainers are handed to {@code executor}, with a buffer of 4 messages.
     *
     * @param ordered {@code true}: one drainer at a time; {@code false}: up to 2
     */
    static BufferedSubscriber buffered(Executor executor, boolean ordered, MessageHandler handler) {
        SubscribeOptions options = SubscribeOptions.defaults().mode(ExecutionMode.WORKER).ordered(ordered)
                .maxConcurrency(2).bufferSize(4);
        return new BufferedSubscriber(BROKER, 1, PATTERN, Scope.PRIVATE, options, handler, 0, NO_LIMIT_NANOS,
                executor, false, null);
    }

    /** An EVENT_LOOP subscriber (handler called inline by {@link Subscriber#deliver}). */
    static EventLoopSubscriber eventLoop(MessageHandler handler) {
        return new EventLoopSubscriber(BROKER, 1, PATTERN, Scope.PRIVATE, SubscribeOptions.defaults(), handler, 0,
                NO_LIMIT_NANOS, null);
    }

    /** A PUBLISHER subscriber (handler called on the publishing thread by {@code deliverDirect}). */
    static PublisherSubscriber publisher(MessageHandler handler) {
        return new PublisherSubscriber(BROKER, 1, PATTERN, Scope.PRIVATE,
                SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER), handler, 0, null);
    }

    /** A ring slot holding a message on {@code subject} with {@code payload}, read by one event loop. */
    static MessageSlot slot(String subject, Object payload) {
        MessageSlot slot = new MessageSlot();
        slot.set(null, subject, null, Headers.EMPTY, payload, 0);
        return slot;
    }
}
