package io.ringbus.jetstream.internal.consumer;

import io.ringbus.core.Broker;
import io.ringbus.core.Headers;
import io.ringbus.core.Scope;

import java.util.ArrayDeque;

/**
 * What a consumer sends (deliveries and status messages), published at its stream's scope at once,
 * or, while it is held ({@link #hold}: a new consumer whose create response is not out yet), kept in
 * order and published when it is {@link #release}d, after that response.
 *
 * <p>A held consumer still reads and delivers: its first messages are read on the consumers' thread
 * while it creates the consumer, before the client has its answer, so that a message a limit removes
 * a moment later (max_msgs_per_subject: the put a KV watch starts at, superseded by the client's next
 * put and delete of the key) is not lost to it; and the client still gets the create response first
 * (nats.js' ordered consumer drops a delivery that comes before it). Bounded: once {@link #full},
 * the consumer delivers nothing more until it is released.
 *
 * <p>Threading: the consumers' thread only.
 */
final class ConsumerOutput {
    /** The most deliveries held. */
    static final int MAX_HELD = 4_096;
    /** The most bytes held, counted as nats-server sizes a delivery (subject, reply, headers, payload). */
    static final long MAX_HELD_BYTES = 4L << 20;

    private record Held(String subject, String reply, Headers headers, Object payload) {
    }

    private final Broker broker;
    private final Scope scope;
    /** What was sent while held, in order; null when not held. */
    private ArrayDeque<Held> held;
    private long heldBytes;

    ConsumerOutput(Broker broker, Scope scope) {
        this.broker = broker;
        this.scope = scope;
    }

    /** From now on, what is sent is kept until {@link #release}. */
    void hold() {
        held = new ArrayDeque<>();
        heldBytes = 0;
    }

    /** @return whether what is sent is kept ({@link #hold} and not released yet) */
    boolean holding() {
        return held != null;
    }

    /** @return whether it holds as much as it may: the consumer delivers nothing more until released */
    boolean full() {
        return held != null && (held.size() >= MAX_HELD || heldBytes >= MAX_HELD_BYTES);
    }

    /**
     * Publishes a message at the stream's scope, or keeps it while held.
     *
     * @param size its size as counted against {@link #MAX_HELD_BYTES}
     */
    void send(String subject, String reply, Headers headers, Object payload, long size) {
        if (held == null) {
            broker.publishAtScope(scope, subject, reply, headers, payload);
        } else {
            held.addLast(new Held(subject, reply, headers, payload));
            heldBytes += size;
        }
    }

    /** Publishes what was held, in order; from now on everything is published at once. */
    void release() {
        ArrayDeque<Held> out = held;
        held = null;
        heldBytes = 0;
        if (out != null) {
            for (Held message : out) {
                broker.publishAtScope(scope, message.subject, message.reply, message.headers, message.payload);
            }
        }
    }
}
