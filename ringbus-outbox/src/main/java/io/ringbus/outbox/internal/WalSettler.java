package io.ringbus.outbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Settles a WAL relay's delivered batches (delete or mark the delivered rows, dead-letter the
 * rest, commit) on a connection of its own, one batch after another, while the stream thread reads
 * and delivers the next batch: a commit that waits on a busy database's WAL flush no longer holds
 * the stream. The position the relay may confirm is the end of the last batch settled.
 *
 * <p>At most {@link #MAX_IN_FLIGHT} batches wait or run; {@link #submit} blocks beyond that. After a
 * failure nothing more is settled and the next {@link #check()} throws, so the relay reconnects and
 * the slot sends again from the last confirmed position (duplicates only, at least once).
 *
 * <p>Threading: {@link #submit}, {@link #check}, {@link #idle}, {@link #settledLsn} and
 * {@link #drain} from the stream's thread; settles run on one thread of its own.
 */
final class WalSettler implements AutoCloseable {
    /** Batches queued or settling at once: the one settling and the next. */
    static final int MAX_IN_FLIGHT = 2;

    private final Connection connection;
    private final OutboxStatements statements;
    private final boolean delete;
    private final LoopCounters counters;
    private final ExecutorService thread;
    private final Semaphore slots = new Semaphore(MAX_IN_FLIGHT);
    private volatile long settledLsn;
    private volatile Exception failure;
    private final AtomicBoolean sweepQueued = new AtomicBoolean();
    private volatile boolean sweepUnfinished;

    /**
     * @param connection a connection with auto-commit off, used by the settle thread only
     * @param name       the relay's name, for the thread's
     */
    WalSettler(Connection connection, OutboxStatements statements, boolean delete, LoopCounters counters, String name) {
        this.connection = connection;
        this.statements = statements;
        this.delete = delete;
        this.counters = counters;
        this.thread = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("ringbus-outbox-" + name
                + "-settle").factory());
    }

    /**
     * Settles one batch now, on the caller's connection and thread (the catch-up's path).
     *
     * @param ids    delivered rows
     * @param deaths rows to dead-letter
     */
    static void settle(Connection c, OutboxStatements statements, boolean delete, LoopCounters counters, long[] ids,
                       List<OutboxStatements.Failure> deaths) throws SQLException {
        if (statements.sql().insertOnly()) {
            // The rows stay as inserted (their partition is pruned once the slot passed them): only
            // dead letters are written.
            if (!deaths.isEmpty()) {
                statements.failed(c, deaths);
                c.commit();
            }
        } else if (deaths.isEmpty() && ids.length > 0) {
            statements.deliveredAndCommit(c, ids, delete); // the usual batch: one round trip
        } else {
            statements.delivered(c, ids, delete);
            statements.failed(c, deaths);
            c.commit();
        }
        counters.delivered.add(ids.length);
        counters.deadLettered.add(deaths.size());
    }

    /**
     * Queues a delivered batch's settle; blocks while {@link #MAX_IN_FLIGHT} are queued.
     *
     * @param endLsn the stream position after the batch's last commit
     * @throws SQLException when an earlier settle failed, or when interrupted
     */
    void submit(long[] ids, List<OutboxStatements.Failure> deaths, long endLsn) throws SQLException {
        check();
        try {
            slots.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting to settle a batch", e);
        }
        thread.execute(() -> {
            try {
                if (failure == null) {
                    settle(connection, statements, delete, counters, ids, deaths);
                    settledLsn = endLsn;
                }
            } catch (SQLException | RuntimeException e) {
                failure = e;
            } finally {
                slots.release();
            }
        });
    }

    /**
     * Queues one pass of the retention sweep ({@link OutboxStatements#sweep}, bounded by
     * {@code budgetNanos}) behind the batches queued now, unless one is queued already; a pass that
     * did not finish leaves {@link #sweepUnfinished()} true, so that the stream queues the next one
     * and batches settle in between. A failure fails the relay as a failed settle does.
     */
    void sweep(long retentionMillis, int chunk, long budgetNanos) {
        if (!sweepQueued.compareAndSet(false, true)) {
            return;
        }
        thread.execute(() -> {
            try {
                if (failure == null) {
                    sweepUnfinished = !statements.sweep(connection, retentionMillis, chunk, budgetNanos).finished();
                }
            } catch (SQLException | RuntimeException e) {
                failure = e;
            } finally {
                sweepQueued.set(false);
            }
        });
    }

    /** @return whether the last sweep pass ran out of its time with rows past the retention left */
    boolean sweepUnfinished() {
        return sweepUnfinished;
    }

    /** @throws SQLException carrying the failure of an earlier settle, if one failed */
    void check() throws SQLException {
        Exception f = failure;
        if (f != null) {
            throw new SQLException("settling a delivered batch failed: " + f.getMessage(), f);
        }
    }

    /** @return whether every submitted batch is settled (or failed) */
    boolean idle() {
        return slots.availablePermits() == MAX_IN_FLIGHT;
    }

    /** @return the stream position after the last batch settled, 0 before the first */
    long settledLsn() {
        return settledLsn;
    }

    /**
     * Waits until every submitted batch is settled.
     *
     * @throws SQLException when one failed, or when interrupted
     */
    void drain() throws SQLException {
        try {
            slots.acquire(MAX_IN_FLIGHT);
            slots.release(MAX_IN_FLIGHT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for settles", e);
        }
        check();
    }

    /** Lets queued settles finish (up to 30 s), then stops the thread; the connection is the caller's. */
    @Override
    public void close() {
        stop(thread);
    }

    /** Lets {@code thread}'s queued tasks finish (up to 30 s), then stops it, interrupted or not. */
    static void stop(ExecutorService thread) {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            thread.shutdownNow();
        }
    }
}
