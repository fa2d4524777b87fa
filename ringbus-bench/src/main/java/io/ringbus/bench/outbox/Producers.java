package io.ringbus.bench.outbox;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Producers as an application has them: {@code threads} connections, each committing one keyed
 * row per transaction through the contender's {@link Appender}. Either flat out until a deadline, or paced: event {@code n} is due at
 * {@code start + n x interval} on a shared schedule (no drift from sleeping), taken by whichever
 * connection is free, so one slow commit does not hold the schedule back. Records each row id
 * and commit instant in the {@link DeliveryLog}.
 */
final class Producers {
    private Producers() {
    }

    /**
     * What a run appended.
     *
     * @param startNanos when the schedule started, {@link System#nanoTime()}
     * @param events     events committed: sequence numbers {@code 0 .. events - 1}
     */
    record Produced(long startNanos, int events) {
    }

    /**
     * Commits as fast as the connections go, until {@code runFor} has passed or the log is full.
     *
     * @param appender   what commits a row
     * @param log        where ids and commit instants go; its size bounds the run
     * @param threads    connections
     * @param runFor     how long
     * @return what was appended
     * @throws SQLException when an append or commit fails
     */
    static Produced flatOut(Appender appender, DeliveryLog log, int threads, Duration runFor)
            throws SQLException {
        return run(appender, log, threads, 0, runFor.toNanos());
    }

    /**
     * Commits every event of the log on the shared schedule.
     *
     * @param appender     what commits a row
     * @param log          where ids and commit instants go; its size is the number of events
     * @param threads      connections
     * @param eventsPerSec the rate
     * @return what was appended
     * @throws SQLException when an append or commit fails
     */
    static Produced paced(Appender appender, DeliveryLog log, int threads, double eventsPerSec)
            throws SQLException {
        return run(appender, log, threads, Math.max(1, Math.round(1e9 / eventsPerSec)), -1);
    }

    private static Produced run(Appender appender, DeliveryLog log, int threads, long interval,
                                long runForNanos) throws SQLException {
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime() + 5_000_000;
        Parallel.run(threads, "producing", t -> produce(appender, log, next, start, interval, runForNanos));
        return new Produced(start, Math.min(next.get(), log.events()));
    }

    private static void produce(Appender appender, DeliveryLog log, AtomicInteger next, long start, long interval,
                                long runForNanos) throws SQLException {
        int[] one = new int[1];
        try (Appender.Session session = appender.open()) {
            int events = log.events();
            for (long now = System.nanoTime(); runForNanos < 0 || now - start < runForNanos; now = System.nanoTime()) {
                // The clock is read before the sequence is taken, so every sequence taken is appended.
                int seq = next.getAndIncrement();
                if (seq >= events) {
                    return;
                }
                long due = start + seq * interval;
                for (long wait = due - now; wait > 0; wait = due - System.nanoTime()) {
                    LockSupport.parkNanos(wait);
                }
                one[0] = seq;
                log.started(seq, System.nanoTime());
                session.commit(one, 1, true, log);
                log.committed(seq, System.nanoTime());
            }
        }
    }
}
