package io.ringbus.federation.internal;

import io.ringbus.core.StorageException;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One stream's budget of appended bytes not yet acknowledged by JetStream (its PubAck). An append
 * reserves its bytes before it is published and releases them when the PubAck or a failure comes,
 * so at most {@code max} bytes are in flight: the bound of {@code StoredStream}.
 *
 * <p>One append larger than the whole budget is let through when nothing else is pending, as
 * the local store does, so it is never refused for want of room it can never have.
 *
 * <p>Thread-safe. The fast path is one CAS; a waiting appender parks on a condition that
 * {@link #release} signals only while someone waits (a timed wait covers a missed signal).
 */
public final class PendingBytes {
    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final String stream;
    private final long max;
    private final AtomicLong pending = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    private volatile int waiters;
    private volatile boolean closed;

    /**
     * @param stream the stream's name, for messages
     * @param max    the most bytes in flight, &gt;= 1
     */
    public PendingBytes(String stream, long max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxPendingBytes must be positive: maxPendingBytes=" + max);
        }
        this.stream = stream;
        this.max = max;
    }

    /**
     * Takes {@code bytes} from the budget.
     *
     * @param bytes the append's size
     * @param wait  whether to wait for room; else give up at once
     * @return {@code true} when taken; {@code false} only when {@code wait} is false and there is no room
     * @throws IllegalStateException when the stream is closed (also while waiting)
     * @throws StorageException      when interrupted while waiting (the interrupt flag is set again)
     */
    public boolean reserve(long bytes, boolean wait) {
        while (true) {
            if (closed) {
                throw new IllegalStateException("stream closed: " + stream);
            }
            long current = pending.get();
            if (current == 0 || current + bytes <= max) {
                if (pending.compareAndSet(current, current + bytes)) {
                    return true;
                }
                continue;
            }
            if (!wait) {
                return false;
            }
            awaitRoomSlowPath(bytes);
        }
    }

    private void awaitRoomSlowPath(long bytes) {
        lock.lock();
        try {
            waiters++;
            long current = pending.get();
            if (!closed && current != 0 && current + bytes > max) {
                room.awaitNanos(PARK_NANOS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException("interrupted waiting for room in stream '" + stream + "'", e);
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    /**
     * Gives bytes back (a PubAck or a failure came) and wakes waiting appenders.
     *
     * @param bytes what {@link #reserve} took
     */
    public void release(long bytes) {
        pending.addAndGet(-bytes);
        if (waiters > 0) {
            signalAll();
        }
    }

    private void signalAll() {
        lock.lock();
        try {
            room.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** @return the bytes in flight now */
    public long pending() {
        return pending.get();
    }

    /**
     * Waits until nothing is in flight, or the deadline.
     *
     * @param timeoutNanos the most to wait
     * @return whether nothing is in flight
     */
    public boolean awaitEmpty(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (pending.get() != 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            lock.lock();
            try {
                waiters++;
                if (pending.get() != 0) {
                    room.awaitNanos(Math.min(left, PARK_NANOS));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return pending.get() == 0;
            } finally {
                waiters--;
                lock.unlock();
            }
        }
        return true;
    }

    /** Refuses later reservations and wakes every waiting appender, which then throws. */
    public void close() {
        closed = true;
        signalAll();
    }
}
