package io.ringbus.core;

/**
 * A durable consumer's counters, as the store reports them.
 *
 * @param stream      the stream
 * @param name        the consumer's durable name
 * @param ackFloor    every sequence at or below it is acknowledged
 * @param pending     messages matching the consumer that were not delivered yet
 * @param ackPending  messages delivered and not yet acknowledged
 * @param redelivered deliveries that were redeliveries, since the consumer was opened
 * @param delivered   deliveries in all, since the consumer was opened
 */
public record ConsumerStats(String stream, String name, long ackFloor, long pending, long ackPending,
                            long redelivered, long delivered) {
}
