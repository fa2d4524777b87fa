package io.ringbus.bench.outbox;

import com.gruelbox.transactionoutbox.DefaultPersistor;
import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.ExecutorSubmitter;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import com.gruelbox.transactionoutbox.TransactionOutboxEntry;
import com.gruelbox.transactionoutbox.TransactionOutboxListener;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.ringbus.core.Headers;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.OutboxSink;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * gruelbox transaction-outbox 4.2.268 as its README sets it up, as a contender: a
 * {@link TransactionManager#fromDataSource} over a HikariCP pool on the run's schema, the
 * {@link DefaultPersistor} for PostgreSQL (its migrations create {@code TXNO_OUTBOX} there), and a
 * producer's event scheduled as a call of {@link Delivery#deliver} inside the transaction. After the
 * commit the call is handed to an {@link ExecutorSubmitter} on {@value #WORKERS} threads, each call
 * in a transaction of its own (lock the row, deliver, delete); a background thread calls
 * {@link TransactionOutbox#flush()} for work that was not handed over, as the README's worker does.
 *
 * <p>Not promised: per-key order. 4.2.268 has no ordered processing (topics came in 5.5); calls
 * run in parallel on the executor. Rows have UUIDs, so the log gets the event's sequence as its id.
 *
 * <p>Until {@link #start} the post-commit hand-over is dropped (the entry stays for
 * {@code flush()}, as when an application stopped after its commit), so a drain's backlog waits.
 */
final class GruelboxPeer implements AutoCloseable {
    /** Threads running scheduled calls (the default executor has 1; the machine has 2 cores). */
    static final int WORKERS = 4;
    /** Entries a {@code flush()} takes (the library's default). */
    static final int FLUSH_BATCH = 4_096;
    /** When a scheduled call not yet done is due to {@code flush()} (default 2 min; shorter so a drain starts soon). */
    static final Duration ATTEMPT_FREQUENCY = Duration.ofSeconds(5);
    /** Sleep of the flush thread when a flush found nothing or the executor's queue is full. */
    static final long FLUSH_IDLE_MILLIS = 100;
    /** Connections: 8 producers + {@value #WORKERS} workers + the flush thread + spares. */
    private static final int POOL_SIZE = 16;

    private final HikariDataSource pool;
    private final ThreadLocalContextTransactionManager transactions;
    private final TransactionOutbox outbox;
    private final ThreadPoolExecutor workers;
    private final AtomicReference<OutboxSink> sink = new AtomicReference<>();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Throwable> lastFailure = new AtomicReference<>();
    private final AtomicLong lastScheduledNanos = new AtomicLong(System.nanoTime());

    /**
     * Opens a pool on {@code schema} and migrates the outbox table into it.
     *
     * @param pgUrl  a {@code jdbc:postgresql:} URL with the user
     * @param schema the run's schema
     */
    GruelboxPeer(String pgUrl, String schema) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pgUrl + (pgUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema);
        config.setMaximumPoolSize(POOL_SIZE);
        config.setPoolName("gruelbox-" + schema);
        pool = new HikariDataSource(config);
        workers = new ThreadPoolExecutor(WORKERS, WORKERS, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                Thread.ofPlatform().name("gruelbox-worker-", 0).daemon(true).factory());
        Submitter submitter = ExecutorSubmitter.builder().executor(workers).build();
        transactions = TransactionManager.fromDataSource(pool);
        Delivery delivery = new SinkDelivery(sink);
        outbox = TransactionOutbox.builder()
                .transactionManager(transactions)
                .persistor(DefaultPersistor.builder().dialect(Dialect.POSTGRESQL_9).build())
                .instantiator(Instantiator.using(type -> delivery))
                .submitter((entry, work) -> {
                    if (sink.get() != null) {
                        submitter.submit(entry, work);
                    }
                })
                .attemptFrequency(ATTEMPT_FREQUENCY)
                .flushBatchSize(FLUSH_BATCH)
                .serializeMdc(false)
                .listener(new TransactionOutboxListener() {
                    @Override
                    public void failure(TransactionOutboxEntry entry, Throwable cause) {
                        failures.incrementAndGet();
                        lastFailure.set(cause);
                    }
                })
                .build();
    }

    /** @return producer sessions: each {@link Appender.Session#commit} is one {@code inTransaction} */
    Appender appender() {
        return () -> new Appender.Session() {
            @Override
            public void commit(int[] sequences, int count, boolean keyed, DeliveryLog log) throws SQLException {
                transactions.inTransactionThrows(tx -> {
                    for (int i = 0; i < count; i++) {
                        int seq = sequences[i];
                        outbox.schedule(Delivery.class).deliver(seq, keyed ? EventPayload.key(seq) : null,
                                Base64.getEncoder().encodeToString(EventPayload.encode(seq)));
                        log.appended(seq, seq);
                    }
                });
                lastScheduledNanos.set(System.nanoTime());
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * Waits until the entries written so far are due to {@code flush()}: an entry is due
     * {@link #ATTEMPT_FREQUENCY} after it was scheduled.
     */
    void awaitBacklogDue() {
        long due = lastScheduledNanos.get() + ATTEMPT_FREQUENCY.toNanos() + TimeUnit.MILLISECONDS.toNanos(50);
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
            LockSupport.parkNanos(wait);
        }
    }

    /**
     * Starts delivering: post-commit hand-overs run from now on, and the flush thread takes what is due.
     *
     * @param destination where calls deliver
     * @return the running worker
     */
    PeerRelay start(OutboxSink destination) {
        if (!sink.compareAndSet(null, destination)) {
            throw new IllegalStateException("gruelbox peer already started");
        }
        return new Flusher();
    }

    @Override
    public void close() {
        sink.set(null);
        workers.shutdownNow();
        pool.close();
    }

    /** What a scheduled event calls; public because the outbox invokes it by reflection. */
    public interface Delivery {
        /**
         * @param sequence      the event's sequence number
         * @param key           its key, or {@code null}
         * @param payloadBase64 its payload, Base64 (the default serializer takes no {@code byte[]})
         */
        void deliver(int sequence, String key, String payloadBase64);
    }

    /** Delivers to the started sink and waits for it, as the relays do. */
    public static final class SinkDelivery implements Delivery {
        private final AtomicReference<OutboxSink> sink;

        SinkDelivery(AtomicReference<OutboxSink> sink) {
            this.sink = sink;
        }

        @Override
        public void deliver(int sequence, String key, String payloadBase64) {
            OutboxSink target = sink.get();
            if (target == null) {
                throw new IllegalStateException("gruelbox peer stopped: sequence=" + sequence);
            }
            target.deliver(new OutboxEvent(sequence, Integer.toString(sequence), EventPayload.SUBJECT, key,
                    Base64.getDecoder().decode(payloadBase64), Headers.EMPTY, 0, Instant.now()))
                    .toCompletableFuture().join();
        }
    }

    /** The README's background worker: {@code while (flush())}, then a pause. */
    private final class Flusher implements PeerRelay {
        private final Thread thread;
        private final AtomicInteger flushes = new AtomicInteger();
        private volatile boolean closed;

        Flusher() {
            thread = Thread.ofPlatform().name("gruelbox-flush").daemon(true).start(this::run);
        }

        private void run() {
            while (!closed) {
                try {
                    // Flush only what the executor can take before the entries fall due again.
                    if (workers.getQueue().size() < FLUSH_BATCH && outbox.flush()) {
                        flushes.incrementAndGet();
                        continue;
                    }
                } catch (RuntimeException e) {
                    failures.incrementAndGet();
                    lastFailure.set(e);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(FLUSH_IDLE_MILLIS));
            }
        }

        @Override
        public long batches() {
            return flushes.get();
        }

        @Override
        public String failures() {
            return failures.get() == 0 ? null : failures.get() + " failed calls or flushes, last: " + lastFailure.get();
        }

        @Override
        public long pending() throws SQLException {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM txno_outbox WHERE NOT processed")) {
                rs.next();
                return rs.getLong(1);
            }
        }

        @Override
        public void close() {
            closed = true;
            SkipLockedPoller.awaitStopped(thread);
            sink.set(null);
        }
    }

    /** @return the settings line of the report header */
    static String settings() {
        return "gruelbox transaction-outbox 4.2.268: immediate hand-over after commit to " + WORKERS
                + " executor threads (one transaction per event), flush() of " + FLUSH_BATCH
                + " entries in a loop, idle pause " + FLUSH_IDLE_MILLIS + " ms, attemptFrequency "
                + ATTEMPT_FREQUENCY.toSeconds() + " s; per-key order not promised (no ordered processing before 5.5)";
    }
}
