package io.ringbus.outbox;

import io.ringbus.outbox.internal.RelayGroup;
import java.time.Duration;

/**
 * Delivers an outbox's committed rows to sinks, at least once, in order per key.
 *
 * <p>A thread (or {@code parallelBatches} threads) claims a batch of due rows in a transaction ({@code FOR UPDATE SKIP LOCKED} on
 * PostgreSQL, so relays share the work), delivers them through the sinks (different keys
 * concurrently, up to each sink's {@code maxConcurrency}; one key's rows one after another),
 * then in the same transaction marks them delivered, schedules retries or dead-letters them, and
 * commits. A relay that dies mid-batch never commits, so its rows become claimable again at once
 * and only that batch is redelivered. A claimed row whose key has an earlier pending row this
 * relay did not claim (another relay's, or one waiting for a retry) is left for later: rows of a
 * key are delivered in id order, which appends make commit order.
 *
 * <p>When idle it waits for a NOTIFY (PostgreSQL) or the poll interval. When the database fails
 * it reconnects with backoff; rows stay in the database meanwhile, never in memory.
 */
public final class Relay implements AutoCloseable {
    private final RelayGroup loop;

    Relay(RelayGroup loop) {
        this.loop = loop;
    }

    /** @return the relay's name */
    public String name() {
        return loop.name();
    }

    /** @return counters and the last counts of pending and dead rows */
    public RelayStats stats() {
        return loop.stats();
    }

    /** Makes an idle relay look for rows now (as a NOTIFY does). */
    public void wakeUp() {
        loop.wakeUp();
    }

    /**
     * Stops claiming, lets the current batch finish (each delivery bounded by the delivery
     * timeout) and commit, and stops the relay's threads. Does not close the sinks.
     *
     * @param timeout how long to wait for the current batch
     * @return whether the relay stopped within the timeout
     */
    public boolean close(Duration timeout) {
        return loop.close(timeout.toMillis());
    }

    /** Closes with a timeout of the delivery timeout plus 5 s. */
    @Override
    public void close() {
        loop.close(-1);
    }

    @Override
    public String toString() {
        return "Relay[" + loop.name() + "]";
    }
}
