package io.ringbus.outbox.internal;

import io.ringbus.outbox.OutboxEvent;

/**
 * A row a relay claimed, with its age when claimed measured on the database clock (so that the
 * delivery latency, append to sink ack, needs no agreement between the database and JVM clocks)
 * and what may block it.
 *
 * @param event     the row
 * @param ageMicros microseconds between the append and the claim, database clock
 * @param blockerId the first pending row of the same key that the relay did not claim, or 0: this
 *                  row must not be delivered now when its id is greater
 */
public record ClaimedRow(OutboxEvent event, long ageMicros, long blockerId) {
    /** @return whether an earlier pending row of its key is elsewhere, so this one must wait */
    public boolean blocked() {
        return blockerId != 0 && event.id() > blockerId;
    }
}
