package io.ringbus.core.memory;

import io.ringbus.core.Backoff;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A budget of bytes held at once (in flight, pending, buffered), shared by many threads: what is
 * taken is given back with {@link #release}.
 *
 * <p><b>Admission.</b> Two ways to take bytes, each budget keeping the one it had:
 * <ul>
 *   <li>{@link #tryAcquire}: exact. The bytes held never pass the limit, except by one message
 *       larger than the whole limit taken while nothing is held (so that it is never refused for
 *       want of room it can never have). One compare-and-set when uncontended.</li>
 *   <li>{@link #tryAcquireOvershooting}: checked, then added: one read and one add, never a retry,
 *       for the hottest paths. Racing acquirers may overshoot the limit by one message each; the
 *       same lone large message passes when nothing is held.</li>
 * </ul>
 * {@link #acquire} waits for room by the caller's rules (its back-off, and a check that throws to
 * give up: closed, or a thread that must not wait). {@link #add} changes the bytes held without
 * asking (a buffer grew), for budgets that are checked apart with {@link #exceeded}.
 *
 * <p><b>Woken waits.</b> {@link #acquireWoken} (exact admission) and {@link #awaitEmpty} wait on
 * a condition that {@link #release} signals, so a waiter runs again as soon as bytes come back,
 * not after its back-off. A release reads one volatile count of such waiters and takes the lock
 * only while someone waits: a budget nobody waits on pays one read more. The lock and its
 * condition are made with the budget; only a wait itself allocates (the condition's queue node).
 * Each wait of an acquire is also bounded by the caller's re-check time, so that a waiter runs its
 * check again (a close) even with no release; {@link #wakeAll} wakes them all at once. {@link #acquire}'s parking waiters
 * are not woken ({@link #add} wakes nobody).
 *
 * <p><b>Counted:</b> bytes {@link #used()}, the {@link #limit()}, {@link #refusals()} (a try that
 * found no room) and {@link #waits()} (an acquire that had to wait). Nothing that does not wait
 * allocates.
 *
 * <p>Thread-safe.
 */
public final class ByteBudget {
    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final LongAdder refusals = new LongAdder();
    private final LongAdder waits = new LongAdder();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    /**
     * Threads in a woken wait; changed under {@link #lock}. Volatile: a waiter counts itself before
     * it reads {@link #used}, a release changes {@link #used} before it reads this, so one of the
     * two sees the other (a waiter never sleeps through the release that made its room).
     */
    private volatile int waiters;

    /**
     * @param limit the most bytes held at once, &gt;= 1
     * @throws IllegalArgumentException naming the limit when it is below 1
     */
    public ByteBudget(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a byte budget's limit must be positive: limit=" + limit);
        }
        this.limit = limit;
    }

    /**
     * Takes bytes when they fit exactly (or nothing is held).
     *
     * @param bytes how many, &gt;= 0
     * @return whether they were taken; a refusal is counted
     */
    public boolean tryAcquire(long bytes) {
        while (true) {
            long now = used.get();
            if (now != 0 && now + bytes > limit) {
                refusals.increment();
                return false;
            }
            if (used.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /**
     * Takes bytes when they fit as the budget is read (or nothing is held): racing acquirers may
     * overshoot the limit by one message each.
     *
     * @param bytes how many, &gt;= 0
     * @return whether they were taken; a refusal is counted
     */
    public boolean tryAcquireOvershooting(long bytes) {
        long now = used.get();
        if (now > 0 && now + bytes > limit) {
            refusals.increment();
            return false;
        }
        used.getAndAdd(bytes);
        return true;
    }

    /**
     * Takes bytes, waiting for room: tries {@link #tryAcquire} (or {@link #tryAcquireOvershooting}
     * when {@code overshooting}), and between tries runs {@code check} and parks by {@code backoff}.
     *
     * @param bytes        how many, &gt;= 0
     * @param overshooting which admission to use
     * @param backoff      how long to park between tries (nanoseconds)
     * @param check        run before each park; throws to give up (the budget is then unchanged)
     */
    public void acquire(long bytes, boolean overshooting, Backoff backoff, Runnable check) {
        if (overshooting ? tryAcquireOvershooting(bytes) : tryAcquire(bytes)) {
            return;
        }
        waits.increment();
        long park = backoff.initial();
        do {
            check.run();
            LockSupport.parkNanos(park);
            park = backoff.next(park);
        } while (!(overshooting ? tryAcquireOvershooting(bytes) : tryAcquire(bytes)));
    }

    /**
     * Takes bytes exactly ({@link #tryAcquire}), waiting for room: each wait ends when a
     * {@link #release} or {@link #wakeAll} signals, or after {@code recheckNanos}. The wait is
     * counted once; each try that finds no room is a refusal.
     *
     * @param bytes        how many, &gt;= 0
     * @param recheckNanos the longest one wait lasts before the check runs and the acquire tries again
     * @param check        run before each wait and after it (so a waiter woken by a close gives up
     *                     rather than take room), under the budget's lock, so it must not block; throws
     *                     to give up (the budget is then unchanged)
     * @throws InterruptedException when interrupted while waiting (the budget is then unchanged)
     */
    public void acquireWoken(long bytes, long recheckNanos, Runnable check) throws InterruptedException {
        if (tryAcquire(bytes)) {
            return;
        }
        waits.increment();
        do {
            awaitSlowPath(limit - bytes, check, recheckNanos);
        } while (!tryAcquire(bytes));
    }

    /**
     * Waits until nothing is held, or the timeout; woken by each {@link #release}.
     *
     * @param timeoutNanos the most to wait
     * @return whether nothing is held; an interrupt ends the wait, the interrupt flag set again
     */
    public boolean awaitEmpty(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        long left = timeoutNanos;
        try {
            while (used.get() != 0 && left > 0) {
                awaitSlowPath(0, null, left);
                left = deadline - System.nanoTime();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return used.get() == 0;
    }

    /** Runs the check, then waits once while something is held and more than {@code most}. */
    private void awaitSlowPath(long most, Runnable check, long nanos) throws InterruptedException {
        lock.lock();
        try {
            waiters++;
            if (check != null) {
                check.run();
            }
            long now = used.get();
            if (now != 0 && now > most) {
                room.awaitNanos(nanos);
                if (check != null) {
                    check.run();
                }
            }
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    /**
     * Gives bytes back, and wakes the {@link #acquireWoken} and {@link #awaitEmpty} waiters if any.
     *
     * @param bytes what was taken
     */
    public void release(long bytes) {
        used.getAndAdd(-bytes);
        if (waiters != 0) {
            wakeAll();
        }
    }

    /** Wakes every {@link #acquireWoken} and {@link #awaitEmpty} waiter: each runs its check and tries again. */
    public void wakeAll() {
        lock.lock();
        try {
            room.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Changes the bytes held without asking (a buffer grew or shrank).
     *
     * @param bytes the change, negative to give back
     */
    public void add(long bytes) {
        used.getAndAdd(bytes);
    }

    /** @return whether more than the limit is held */
    public boolean exceeded() {
        return used.get() > limit;
    }

    /** @return the bytes held now */
    public long used() {
        return used.get();
    }

    /** @return the most bytes held at once */
    public long limit() {
        return limit;
    }

    /** @return how many tries found no room */
    public long refusals() {
        return refusals.sum();
    }

    /** @return how many acquires had to wait */
    public long waits() {
        return waits.sum();
    }
}
