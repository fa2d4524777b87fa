package io.ringbus.core;

import java.time.Duration;
import java.util.Objects;

/**
 * A durable consumer of a stream: its name, the subjects it takes, where it starts and how it
 * redelivers. Built from {@link SubscribeOptions} by the broker; stores take it as is.
 *
 * @param durableName    the consumer's name, unique in its stream; the consumer's position survives
 *                       restarts under it, and every subscription with this name shares it (each
 *                       message goes to one of them)
 * @param filterSubject  the subject pattern it takes from the stream
 * @param start          where a new consumer starts
 * @param ackWait        how long a delivered message may stay unacknowledged before it is delivered
 *                       again (a handler that hangs, a process that died)
 * @param maxDeliver     how many times a message is delivered before it is given up (dead-lettered)
 * @param maxAckPending  the most messages delivered and not yet acknowledged (the in-flight window)
 */
public record ConsumerConfig(String durableName, String filterSubject, StartPosition start, Duration ackWait,
                             int maxDeliver, int maxAckPending) {
    /** Default {@link #ackWait()}: 30 s, as JetStream's. */
    public static final Duration DEFAULT_ACK_WAIT = Duration.ofSeconds(30);
    /** Default {@link #maxDeliver()}. */
    public static final int DEFAULT_MAX_DELIVER = 5;
    /** Default {@link #maxAckPending()}. */
    public static final int DEFAULT_MAX_ACK_PENDING = 1_000;
    /** Largest accepted {@link #maxAckPending()}. */
    public static final int MAX_ACK_PENDING = 1 << 20;

    /**
     * Checks every field.
     *
     * @throws IllegalArgumentException naming the value that is out of range
     */
    public ConsumerConfig {
        requireName(durableName);
        Subject.requirePattern(filterSubject);
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(ackWait, "ackWait");
        if (ackWait.toMillis() < 1) {
            throw new IllegalArgumentException("ackWait must be at least 1 ms: ackWait=" + ackWait);
        }
        if (maxDeliver < 1) {
            throw new IllegalArgumentException("maxDeliver must be >= 1: maxDeliver=" + maxDeliver);
        }
        if (maxAckPending < 1 || maxAckPending > MAX_ACK_PENDING) {
            throw new IllegalArgumentException("maxAckPending must be in 1.." + MAX_ACK_PENDING + ": maxAckPending="
                    + maxAckPending);
        }
    }

    /**
     * Checks a durable consumer name: letters, digits, {@code -} and {@code _}, 1..255 characters
     * (it names a file and a JetStream consumer).
     *
     * @param name the name
     * @return {@code name}
     * @throws IllegalArgumentException naming the value when it is not one
     */
    public static String requireName(String name) {
        Objects.requireNonNull(name, "durable name");
        boolean bad = name.isEmpty() || name.length() > 255;
        for (int i = 0; i < name.length() && !bad; i++) {
            char c = name.charAt(i);
            bad = !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_');
        }
        if (bad) {
            throw new IllegalArgumentException("durable name must be 1..255 letters, digits, '-' or '_': durable='"
                    + name + "'");
        }
        return name;
    }

    /**
     * A consumer with the defaults: start at {@link StartPosition#all()}, {@link #DEFAULT_ACK_WAIT},
     * {@link #DEFAULT_MAX_DELIVER}, {@link #DEFAULT_MAX_ACK_PENDING}.
     *
     * @param durableName   its name
     * @param filterSubject the subjects it takes
     * @return the configuration
     */
    public static ConsumerConfig of(String durableName, String filterSubject) {
        return new ConsumerConfig(durableName, filterSubject, StartPosition.all(), DEFAULT_ACK_WAIT,
                DEFAULT_MAX_DELIVER, DEFAULT_MAX_ACK_PENDING);
    }
}
