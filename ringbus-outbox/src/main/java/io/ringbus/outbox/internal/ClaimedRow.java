package io.ringbus.outbox.internal;

import io.ringbus.outbox.OutboxEvent;

/**
 * A row a relay claimed, with its age when claimed measured on the database clock, so that the
 * delivery latency (append to sink ack) needs no agreement between the database and JVM clocks.
 *
 * @param event     the row
 * @param ageMicros microseconds between the append and the claim, database clock
 */
public record ClaimedRow(OutboxEvent event, long ageMicros) {
}
