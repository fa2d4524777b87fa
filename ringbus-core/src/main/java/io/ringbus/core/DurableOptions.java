package io.ringbus.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How a durable subscription consumes its stream ({@link SubscribeOptions#durable(DurableOptions)}).
 * Immutable; the {@code with...} methods return changed copies.
 *
 * <p>A durable subscription acknowledges a message when its handler returns. A handler that throws
 * gets the message again after {@code redeliveryDelay}, doubling up to {@code maxRedeliveryDelay};
 * after {@code maxDeliver} tries the message is published to {@code deadLetterSubject} (with headers
 * naming the stream, sequence, consumer and error) and acknowledged.
 *
 * @param name               the consumer's durable name
 * @param start              where a new consumer starts
 * @param ackWait            how long a handler may take before its message is delivered again
 * @param maxDeliver         tries before the message is dead-lettered
 * @param maxAckPending      the most messages handed out and not yet acknowledged
 * @param redeliveryDelay    the first wait before a failed message is delivered again
 * @param maxRedeliveryDelay the longest such wait
 * @param deadLetterSubject  where given-up messages go; {@code null} for {@code $RB.DLQ.<stream>.<name>}
 */
public record DurableOptions(String name, StartPosition start, Duration ackWait, int maxDeliver, int maxAckPending,
                             Duration redeliveryDelay, Duration maxRedeliveryDelay, String deadLetterSubject) {
    /** Default {@link #redeliveryDelay()}. */
    public static final Duration DEFAULT_REDELIVERY_DELAY = Duration.ofMillis(100);
    /** Default {@link #maxRedeliveryDelay()}. */
    public static final Duration DEFAULT_MAX_REDELIVERY_DELAY = Duration.ofSeconds(30);

    /**
     * Checks every field.
     *
     * @throws IllegalArgumentException naming the value that is out of range
     */
    public DurableOptions {
        ConsumerConfig.requireName(name);
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(ackWait, "ackWait");
        if (ackWait.toMillis() < 1) {
            throw new IllegalArgumentException("ackWait must be at least 1 ms: ackWait=" + ackWait);
        }
        if (maxDeliver < 1) {
            throw new IllegalArgumentException("maxDeliver must be >= 1: maxDeliver=" + maxDeliver);
        }
        if (maxAckPending < 1 || maxAckPending > ConsumerConfig.MAX_ACK_PENDING) {
            throw new IllegalArgumentException("maxAckPending must be in 1.." + ConsumerConfig.MAX_ACK_PENDING
                    + ": maxAckPending=" + maxAckPending);
        }
        Objects.requireNonNull(redeliveryDelay, "redeliveryDelay");
        Objects.requireNonNull(maxRedeliveryDelay, "maxRedeliveryDelay");
        if (redeliveryDelay.isNegative() || maxRedeliveryDelay.compareTo(redeliveryDelay) < 0) {
            throw new IllegalArgumentException("need 0 <= redeliveryDelay <= maxRedeliveryDelay: redeliveryDelay="
                    + redeliveryDelay + ", maxRedeliveryDelay=" + maxRedeliveryDelay);
        }
        if (deadLetterSubject != null) {
            Subject.requireLiteral(deadLetterSubject);
        }
    }

    /**
     * The defaults under a name: start at {@link StartPosition#all()}, ack wait 30 s, 5 tries, 1,000
     * in flight, redelivery after 100 ms doubling to 30 s, the default dead-letter subject.
     *
     * @param name the durable name
     * @return the options
     * @throws IllegalArgumentException naming the value when it is not a valid name
     */
    public static DurableOptions named(String name) {
        return new DurableOptions(name, StartPosition.all(), ConsumerConfig.DEFAULT_ACK_WAIT,
                ConsumerConfig.DEFAULT_MAX_DELIVER, ConsumerConfig.DEFAULT_MAX_ACK_PENDING, DEFAULT_REDELIVERY_DELAY,
                DEFAULT_MAX_REDELIVERY_DELAY, null);
    }

    /**
     * @param position where a new consumer starts
     * @return a copy starting there
     */
    public DurableOptions startAt(StartPosition position) {
        return new DurableOptions(name, position, ackWait, maxDeliver, maxAckPending, redeliveryDelay,
                maxRedeliveryDelay, deadLetterSubject);
    }

    /**
     * @param wait how long a handler may take before its message is delivered again
     * @return a copy with that wait
     */
    public DurableOptions withAckWait(Duration wait) {
        return new DurableOptions(name, start, wait, maxDeliver, maxAckPending, redeliveryDelay, maxRedeliveryDelay,
                deadLetterSubject);
    }

    /**
     * @param tries deliveries before a message is dead-lettered
     * @return a copy with that count
     */
    public DurableOptions withMaxDeliver(int tries) {
        return new DurableOptions(name, start, ackWait, tries, maxAckPending, redeliveryDelay, maxRedeliveryDelay,
                deadLetterSubject);
    }

    /**
     * @param pending the most messages out and not yet acknowledged
     * @return a copy with that window
     */
    public DurableOptions withMaxAckPending(int pending) {
        return new DurableOptions(name, start, ackWait, maxDeliver, pending, redeliveryDelay, maxRedeliveryDelay,
                deadLetterSubject);
    }

    /**
     * @param first the first wait before a failed message is delivered again
     * @param max   the longest
     * @return a copy with that back-off
     */
    public DurableOptions withRedelivery(Duration first, Duration max) {
        return new DurableOptions(name, start, ackWait, maxDeliver, maxAckPending, first, max, deadLetterSubject);
    }

    /**
     * @param subject where given-up messages are published
     * @return a copy with that subject
     */
    public DurableOptions withDeadLetterSubject(String subject) {
        return new DurableOptions(name, start, ackWait, maxDeliver, maxAckPending, redeliveryDelay,
                maxRedeliveryDelay, subject);
    }

    /**
     * @param stream the stream the consumer reads
     * @return the dead-letter subject: the one set, or {@code $RB.DLQ.<stream>.<name>}
     */
    public String deadLetterSubjectFor(String stream) {
        return deadLetterSubject != null ? deadLetterSubject : "$RB.DLQ." + stream + "." + name;
    }

    /**
     * The store's consumer for these options. It allows one delivery more than {@link #maxDeliver()}:
     * a delivery a handler never saw (fetched when the process died, or out when the ack wait ran
     * out) still counts in the store, and the extra one lets the message reach the handler and, if it
     * fails again, the dead-letter subject rather than being given up unseen.
     *
     * @param filterSubject the subscription's pattern
     * @return the store's consumer configuration for these options
     */
    public ConsumerConfig consumerConfig(String filterSubject) {
        int storeMaxDeliver = maxDeliver == Integer.MAX_VALUE ? maxDeliver : maxDeliver + 1;
        return new ConsumerConfig(name, filterSubject, start, ackWait, storeMaxDeliver, maxAckPending);
    }
}
