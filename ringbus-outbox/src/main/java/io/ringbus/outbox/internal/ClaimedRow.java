package io.ringbus.outbox.internal;

import io.ringbus.outbox.OutboxEvent;

/**
 * A row a relay claimed, with its age when claimed measured on the database clock (so that the
 * delivery latency, append to sink ack, needs no agreement between the database and JVM clocks)
 * and what may block it.
 *
 * @param event     the row
 * @param ageMicros microseconds between the append and the claim, database clock
 * @param blocked   whether an earlier pending row of its key is not in the relay's batch (another
 *                  relay holds it, or it waits for a retry), so this one must wait for a later batch
 *                  (H2 only: on PostgreSQL a key's bucket belongs to one relay loop)
 * @param bucket    the row's bucket (PostgreSQL), -1 on H2
 */
public record ClaimedRow(OutboxEvent event, long ageMicros, boolean blocked, int bucket) {
}
