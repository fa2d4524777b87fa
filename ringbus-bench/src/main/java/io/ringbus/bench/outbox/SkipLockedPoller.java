package io.ringbus.bench.outbox;

import io.ringbus.core.Headers;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.OutboxSink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The outbox relay people write in 60 lines, as the baseline: on a plain table (no trigger, no
 * index but the primary key), one thread takes a batch with
 * {@code DELETE ... WHERE id IN (SELECT id ... ORDER BY id LIMIT n FOR UPDATE SKIP LOCKED) RETURNING},
 * delivers the rows in id order to the sink, then commits; a poll that finds nothing sleeps
 * {@value #IDLE_MILLIS} ms. A failed delivery or statement rolls the batch back (at least once).
 *
 * <p>Not promised: per-key order. Its producers take no lock, so a key's ids need not follow
 * commit order, and two pollers deliver neighbouring batches at once.
 */
final class SkipLockedPoller implements AutoCloseable {
    /** Sleep after a poll that found nothing. */
    static final long IDLE_MILLIS = 10;

    private final DataSource dataSource;
    private final OutboxSink sink;
    private final String take;
    private final int batchSize;
    private final Thread thread;
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Exception> lastFailure = new AtomicReference<>();
    private volatile boolean closed;

    /**
     * Starts polling.
     *
     * @param dataSource where the table lives
     * @param table      the qualified {@link PlainEventTable}
     * @param sink       where rows go
     * @param batchSize  rows per poll
     */
    SkipLockedPoller(DataSource dataSource, String table, OutboxSink sink, int batchSize) {
        this.dataSource = dataSource;
        this.sink = sink;
        this.batchSize = batchSize;
        this.take = takeStatement(table, "subject, msg_key, payload, created_at");
        this.thread = Thread.ofPlatform().name("skip-locked-poller").daemon(true).start(this::run);
    }

    /**
     * @param table   the qualified table
     * @param columns what to return besides {@code id}
     * @return the statement that deletes and returns the {@code ?} oldest unlocked rows
     */
    static String takeStatement(String table, String columns) {
        return "DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table
                + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING id, " + columns;
    }

    private void run() {
        while (!closed) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                while (!closed) {
                    if (poll(c) == 0) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS));
                    }
                }
            } catch (SQLException | RuntimeException e) {
                failures.incrementAndGet();
                lastFailure.set(e);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
    }

    private int poll(Connection c) throws SQLException {
        List<OutboxEvent> events = new ArrayList<>(batchSize);
        try (PreparedStatement s = c.prepareStatement(take)) {
            s.setInt(1, batchSize);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    events.add(new OutboxEvent(id, Long.toString(id), rs.getString(2), rs.getString(3), rs.getBytes(4),
                            Headers.EMPTY, 0, rs.getTimestamp(5).toInstant()));
                }
            }
            // RETURNING follows the plan's order, not ORDER BY's.
            events.sort(Comparator.comparingLong(OutboxEvent::id));
            for (OutboxEvent event : events) {
                sink.deliver(event).toCompletableFuture().join();
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        }
        if (!events.isEmpty()) {
            batches.incrementAndGet();
        }
        return events.size();
    }

    /** @return polls that found rows */
    long batches() {
        return batches.get();
    }

    /** @return failed polls (their rows went back), with the last failure, or {@code null} */
    String failures() {
        return failures.get() == 0 ? null : failures.get() + " failed polls, last: " + lastFailure.get();
    }

    /** Stops after the current batch (waits up to 30 s for it). */
    @Override
    public void close() {
        closed = true;
        awaitStopped(thread);
    }

    /**
     * Waits up to 30 s for a polling thread told to stop; keeps the interrupt status.
     *
     * @param thread the thread
     */
    static void awaitStopped(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
