package io.ringbus.core.internal.store;

import io.ringbus.core.PublishAck;
import io.ringbus.core.StorageException;
import io.ringbus.core.memory.ByteBudget;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A stream's appends that are written and not yet durable: their acknowledgements, completed in
 * sequence order once the log's flusher reports them durable, and the bytes they hold against the
 * stream's pending budget (a store's {@code maxPendingBytes}), a {@link ByteBudget} with exact
 * admission. A caller that may not wait is refused while the budget is spent; one that may waits
 * for room, woken when acknowledgements complete or an append gives its bytes back. One append
 * always fits, however large, when nothing is pending.
 *
 * <p>Thread-safe: appenders reserve and add, the flusher completes.
 */
final class PendingAcks {
    /** How often a waiting appender checks that the stream is open (a close calls no wakeAll). */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final String stream;
    private final ByteBudget bytes;
    private final ReentrantLock lock = new ReentrantLock();
    /** In sequence order; guarded by {@link #lock}. */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();

    private record Pending(long sequence, int bytes, CompletableFuture<PublishAck> future) {
    }

    /**
     * @param stream   the stream's name, for its acknowledgements and errors
     * @param maxBytes the most bytes pending at once
     */
    PendingAcks(String stream, long maxBytes) {
        this.stream = stream;
        this.bytes = new ByteBudget(maxBytes);
    }

    /**
     * Takes {@code size} bytes of the budget.
     *
     * @param size      the append's bytes
     * @param wait      whether to wait for room
     * @param checkOpen throws when the stream closed while waiting
     * @return false when there is no room and {@code wait} is false
     * @throws StorageException when interrupted while waiting
     */
    boolean reserve(int size, boolean wait, Runnable checkOpen) {
        if (!wait) {
            return bytes.tryAcquire(size);
        }
        try {
            bytes.acquireWoken(size, RECHECK_NANOS, checkOpen);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException("interrupted waiting for room in stream '" + stream + "'", e);
        }
    }

    /** Gives back bytes of an append that was not made. */
    void release(int size) {
        bytes.release(size);
    }

    /** Queues the acknowledgement of an append made, in sequence order (under the stream's append lock). */
    void add(long sequence, int size, CompletableFuture<PublishAck> future) {
        lock.lock();
        try {
            pending.addLast(new Pending(sequence, size, future));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Completes every acknowledgement up to {@code durable} and releases its bytes; with an
     * {@code error}, fails the rest.
     */
    void complete(long durable, IOException error) {
        List<Pending> done = null;
        long released = 0;
        lock.lock();
        try {
            while (!pending.isEmpty() && (pending.peekFirst().sequence <= durable || error != null)) {
                Pending ack = pending.pollFirst();
                released += ack.bytes;
                if (done == null) {
                    done = new ArrayList<>();
                }
                done.add(ack);
            }
        } finally {
            lock.unlock();
        }
        if (done != null) {
            bytes.release(released); // wakes the appenders waiting for room
            for (Pending ack : done) {
                if (ack.sequence <= durable) {
                    ack.future.complete(new PublishAck(stream, ack.sequence, false));
                } else {
                    ack.future.completeExceptionally(new StorageException("stream '" + stream + "': sequence "
                            + ack.sequence + " not durable, fsync failed: " + error, error));
                }
            }
        }
    }
}
