package io.ringbus.bench.outbox;

import io.ringbus.core.Headers;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.OutboxSink;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The relay of seed 002, rebuilt on the same table: a scheduler wakes every
 * {@code interval} (fixed delay, as Spring's {@code @Scheduled(fixedDelay = 1000)}), reads the
 * {@code batchSize} oldest pending rows with a plain {@code SELECT ... ORDER BY id LIMIT} (no
 * locking, so two of these would deliver the same rows), starts every delivery at once (the
 * article's {@code launch} per event), waits for all of them, then marks the rows delivered with
 * one {@code UPDATE ... WHERE id = ANY(?)}. No LISTEN, no per-key order, no retries: a failed
 * delivery leaves its row pending for the next tick.
 *
 * <p>A tick that throws is counted and the next tick runs: a scheduled task that throws would
 * otherwise stop silently.
 */
final class NaivePollingRelay implements AutoCloseable {
    private final DataSource dataSource;
    private final OutboxSink sink;
    private final String select;
    private final String markDelivered;
    private final int batchSize;
    private final ScheduledExecutorService scheduler;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong ticks = new AtomicLong();
    private final AtomicLong failedTicks = new AtomicLong();
    private final AtomicReference<Throwable> lastFailure = new AtomicReference<>();

    /**
     * Starts polling at once, then every {@code interval} after the previous tick ended.
     *
     * @param dataSource where the outbox table lives
     * @param table      the qualified outbox table
     * @param sink       where rows go
     * @param batchSize  rows per tick
     * @param interval   delay between the end of a tick and the start of the next
     */
    NaivePollingRelay(DataSource dataSource, String table, OutboxSink sink, int batchSize, Duration interval) {
        this.dataSource = dataSource;
        this.sink = sink;
        this.batchSize = batchSize;
        this.select = "SELECT id, subject, msg_key, payload, attempts, created_at FROM " + table
                + " WHERE status = 0 ORDER BY id LIMIT ?";
        this.markDelivered = "UPDATE " + table + " SET status = 1, done_at = clock_timestamp() WHERE id = ANY(?)";
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform()
                .name("naive-outbox-poller").daemon(true).unstarted(r));
        scheduler.scheduleWithFixedDelay(this::tick, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void tick() {
        ticks.incrementAndGet();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            List<OutboxEvent> events = new ArrayList<>(batchSize);
            try (PreparedStatement s = c.prepareStatement(select)) {
                s.setInt(1, batchSize);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        long id = rs.getLong(1);
                        events.add(new OutboxEvent(id, Long.toString(id), rs.getString(2), rs.getString(3),
                                rs.getBytes(4), Headers.EMPTY, rs.getInt(5), rs.getTimestamp(6).toInstant()));
                    }
                }
            }
            if (events.isEmpty()) {
                return;
            }
            CompletableFuture<?>[] calls = new CompletableFuture<?>[events.size()];
            for (int i = 0; i < calls.length; i++) {
                calls[i] = sink.deliver(events.get(i)).toCompletableFuture();
            }
            CompletableFuture.allOf(calls).join();
            Long[] ids = new Long[events.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = events.get(i).id();
            }
            try (PreparedStatement update = c.prepareStatement(markDelivered)) {
                Array array = c.createArrayOf("bigint", ids);
                update.setArray(1, array);
                update.executeUpdate();
                array.free();
            }
            delivered.addAndGet(ids.length);
        } catch (SQLException | RuntimeException e) {
            failedTicks.incrementAndGet();
            lastFailure.set(e);
        }
    }

    /** @return rows marked delivered */
    long delivered() {
        return delivered.get();
    }

    /** @return ticks run, including empty ones */
    long ticks() {
        return ticks.get();
    }

    /** @return ticks that failed (their rows stay pending), with the last failure, or {@code null} */
    String failures() {
        Throwable last = lastFailure.get();
        return failedTicks.get() == 0 ? null : failedTicks.get() + " failed ticks, last: " + last;
    }

    /** Stops polling after the current tick (waits up to 30 s for it). */
    @Override
    public void close() {
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
                scheduler.shutdownNow();
            }
        } catch (InterruptedException e) {
            scheduler.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
