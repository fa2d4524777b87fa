package io.ringbus.bench.outbox;

import io.ringbus.outbox.Outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Appends events at a fixed rate, one keyed row per transaction, as an application does: event
 * {@code n} is due at {@code start + n x interval} on a shared schedule (no drift from sleeping),
 * taken by whichever of {@code threads} connections is free, so one slow commit does not hold
 * the schedule back. Records each commit's instant in the {@link DeliveryLog}.
 */
final class PacedProducer {
    private PacedProducer() {
    }

    /**
     * Appends events {@code 0 .. log.events() - 1} and returns when all committed.
     *
     * @param outbox       the outbox
     * @param log          where commit instants go
     * @param eventsPerSec the rate
     * @param threads      connections appending at once
     * @return the start of the schedule, {@link System#nanoTime()}
     * @throws SQLException when an append or commit fails
     */
    static long run(Outbox outbox, DeliveryLog log, double eventsPerSec, int threads) throws SQLException {
        long interval = Math.max(1, Math.round(1e9 / eventsPerSec));
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime() + 5_000_000;
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<Void>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                parts.add(pool.submit(() -> {
                    produce(outbox, log, next, start, interval);
                    return null;
                }));
            }
            for (Future<Void> part : parts) {
                part.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while producing", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new IllegalStateException("producer failed", e.getCause());
        }
        return start;
    }

    private static void produce(Outbox outbox, DeliveryLog log, AtomicInteger next, long start, long interval)
            throws SQLException {
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            int events = log.events();
            for (int seq = next.getAndIncrement(); seq < events; seq = next.getAndIncrement()) {
                long due = start + seq * interval;
                for (long now = System.nanoTime(); due - now > 0; now = System.nanoTime()) {
                    LockSupport.parkNanos(due - now);
                }
                outbox.append(c, EventPayload.SUBJECT, EventPayload.key(seq), EventPayload.encode(seq));
                c.commit();
                log.committed(seq, System.nanoTime());
            }
        }
    }
}
