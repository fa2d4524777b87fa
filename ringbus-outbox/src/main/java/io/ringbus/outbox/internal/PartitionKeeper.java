package io.ringbus.outbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an insert-only table's {@link Partitions#tick} on a thread and connection of its own, so
 * that the stream is never held while a partition is counted, truncated, attached or dropped (a
 * partition of a million rows takes a good part of a second to check), and counts the dead
 * letters there too: a count over the table would wait on a partition that pruning holds locked. At most one tick runs at
 * a time; a tick that fails is logged and counted, and the next one tries again: pruning late
 * delays nothing but the disk space.
 *
 * <p>Threading: {@link #offer} and {@link #close} from the stream's thread; ticks on the keeper's.
 */
final class PartitionKeeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionKeeper.class);

    private final Partitions partitions;
    private final Connection connection;
    private final LoopCounters counters;
    private final String name;
    private final ExecutorService thread;
    private final AtomicBoolean running = new AtomicBoolean();
    private final OutboxStatements statements;
    private final DataSource pool;
    private final LongSupplier passedMarker;
    private final long countNanos;
    private long nextCountNanos = System.nanoTime();
    private volatile long dead = -1;

    /**
     * @param connection   a connection of its own with auto-commit off; the caller closes it
     * @param pool         where pruning borrows a second connection for a seal marker
     * @param passedMarker the newest marker row the relay has passed, read live
     */
    PartitionKeeper(Partitions partitions, OutboxStatements statements, long countMillis, Connection connection,
                    DataSource pool, LongSupplier passedMarker, LoopCounters counters, String name) {
        this.pool = pool;
        this.passedMarker = passedMarker;
        this.partitions = partitions;
        this.statements = statements;
        this.countNanos = TimeUnit.MILLISECONDS.toNanos(countMillis);
        this.connection = connection;
        this.counters = counters;
        this.name = name;
        this.thread = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("ringbus-outbox-" + name
                + "-partitions").factory());
    }

    /**
     * Starts a tick unless one runs (the tick itself runs its work at most once a second).
     */
    void offer() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        thread.execute(() -> {
            try {
                partitions.tick(connection, pool, passedMarker);
                countIfDue();
            } catch (SQLException | RuntimeException e) {
                counters.databaseErrors.increment();
                LOG.warn("outbox relay {}: keeping the partitions failed, tried again at the next tick: {}", name,
                        e.toString());
                try {
                    connection.rollback();
                } catch (SQLException ignored) {
                    // the next tick's statements fail the same way, and are logged then
                }
            } finally {
                running.set(false);
            }
        });
    }

    /** @return the dead letters counted last, -1 before the first count */
    long dead() {
        return dead;
    }

    /** Counts the dead letters (the relay's gauge) on this thread, between prunes, never during one. */
    private void countIfDue() throws SQLException {
        long now = System.nanoTime();
        if (now - nextCountNanos >= 0) {
            nextCountNanos = now + countNanos;
            dead = statements.countPendingAndDead(connection)[1];
            connection.commit();
        }
    }

    /** Lets a running tick finish (up to 30 s), then stops the thread; the connection is the caller's. */
    @Override
    public void close() {
        WalSettler.stop(thread);
    }
}
