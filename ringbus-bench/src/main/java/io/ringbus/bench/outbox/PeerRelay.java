package io.ringbus.bench.outbox;

import java.sql.SQLException;

/**
 * A peer outbox library's worker, started on a {@link BenchOutbox}'s schema: what
 * {@link RelayContender.Running} needs to judge a run of it.
 */
interface PeerRelay extends AutoCloseable {
    /** @return polls (or flushes) that found work */
    long batches();

    /** @return a description of failed deliveries or polls, or {@code null} */
    String failures();

    /**
     * @return rows of the peer's table not yet delivered
     * @throws SQLException when the table cannot be read
     */
    long pending() throws SQLException;

    /** Stops the worker after its current work; the peer's tables and pool stay for the run. */
    @Override
    void close();
}
