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

/**
 * Appends a backlog through {@link Outbox#append} before any relay runs, in transactions of
 * {@value #ROWS_PER_TRANSACTION} rows on {@value #THREADS} connections. Keyed rows are split
 * among the connections by key, so two fill transactions never wait for (or deadlock on) the
 * same key row.
 */
final class BacklogFiller {
    /** Rows per fill transaction. */
    static final int ROWS_PER_TRANSACTION = 1_000;
    /** Connections filling at once (PostgreSQL shares the machine's 2 cores with the JVM). */
    static final int THREADS = 2;

    private BacklogFiller() {
    }

    /**
     * Appends events {@code 0 .. events - 1}.
     *
     * @param outbox the outbox
     * @param events how many
     * @param keyed  whether rows get one of {@link EventPayload#KEYS} keys, or none
     * @return how long the fill took, in nanoseconds
     * @throws SQLException when an append or commit fails
     */
    static long fill(Outbox outbox, int events, boolean keyed) throws SQLException {
        long start = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(THREADS)) {
            List<Future<Void>> parts = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int part = t;
                parts.add(pool.submit(() -> {
                    fillPart(outbox, events, keyed, part);
                    return null;
                }));
            }
            for (Future<Void> part : parts) {
                part.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while filling the backlog", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new IllegalStateException("backlog fill failed", e.getCause());
        }
        return System.nanoTime() - start;
    }

    private static void fillPart(Outbox outbox, int events, boolean keyed, int part) throws SQLException {
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            int inTransaction = 0;
            for (int seq = 0; seq < events; seq++) {
                int owner = keyed ? EventPayload.keyIndex(seq) % THREADS : seq % THREADS;
                if (owner != part) {
                    continue;
                }
                outbox.append(c, EventPayload.SUBJECT, keyed ? EventPayload.key(seq) : null, EventPayload.encode(seq));
                if (++inTransaction == ROWS_PER_TRANSACTION) {
                    c.commit();
                    inTransaction = 0;
                }
            }
            c.commit();
        }
    }
}
