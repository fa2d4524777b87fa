package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The thread that forces a {@link SegmentLog} to the disk and tells waiters how far it is durable.
 *
 * <p>Under {@link FsyncPolicy#ALWAYS} it sleeps until a waiter asks, then forces once for every
 * record appended so far: waiters that arrive during an {@code fsync} share the next one (group
 * commit). Under {@link FsyncPolicy#INTERVAL} it forces every interval, whether asked or not.
 * An {@code fsync} that fails is final (a retry could report success for pages the kernel already
 * dropped): every later {@link #awaitDurable} beyond the durable sequence throws. After each force
 * (and once the waiters are told) it seals the segments that rolled ({@link SegmentLog#sealRolled}).
 */
final class GroupCommitFlusher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommitFlusher.class);

    private final SegmentLog log;
    private final boolean onRequest;
    private final long intervalNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition requested = lock.newCondition();
    private final Condition advanced = lock.newCondition();
    private final Thread thread;
    private volatile long durableSequence;
    private boolean syncRequested;
    private boolean running = true;
    private IOException failure;
    /** Told every advance, after the lock is released; set once before the thread starts. */
    private DurableListener listener;

    GroupCommitFlusher(SegmentLog log, FsyncPolicy policy, long intervalMillis, long durableSequence,
                       String name) {
        this.log = log;
        this.onRequest = policy == FsyncPolicy.ALWAYS;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.durableSequence = durableSequence;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this);
    }

    void listener(DurableListener value) {
        this.listener = value;
    }

    /** Asks for an {@code fsync} of everything appended so far without waiting for it (ALWAYS). */
    void request() {
        lock.lock();
        try {
            if (!syncRequested) {
                syncRequested = true;
                requested.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    void start() {
        thread.start();
    }

    long durableSequence() {
        return durableSequence;
    }

    /**
     * Blocks until {@code sequence} is durable.
     *
     * @throws UncheckedIOException if an {@code fsync} failed before it was
     * @throws IllegalStateException if the log closed before it was
     */
    void awaitDurable(long sequence) {
        if (sequence <= durableSequence) {
            return;
        }
        boolean interrupted = false;
        lock.lock();
        try {
            while (sequence > durableSequence) {
                if (failure != null) {
                    throw new UncheckedIOException("log not durable after a failed fsync: " + failure.getMessage(),
                            failure);
                }
                if (!running) {
                    throw new IllegalStateException("log closed before sequence " + sequence + " was durable");
                }
                if (onRequest && !syncRequested) {
                    syncRequested = true;
                    requested.signal();
                }
                try {
                    advanced.await();
                } catch (InterruptedException e) {
                    interrupted = true; // the record is written; keep waiting for its fsync
                }
            }
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        while (awaitTurn()) {
            try {
                long forced = log.forceAppended(durableSequence);
                publish(forced, null);
                log.sealRolled(true); // after the waiters are told: a seal delays no acknowledgement
            } catch (IOException | RuntimeException e) {
                LOG.error("fsync failed; the log accepts no more durable appends: {}", e.toString());
                publish(durableSequence, e instanceof IOException io ? io : new IOException(e));
                return;
            }
        }
    }

    /** @return false once stopped */
    private boolean awaitTurn() {
        lock.lock();
        try {
            if (onRequest) {
                while (running && !syncRequested) {
                    requested.awaitUninterruptibly();
                }
            } else {
                long left = intervalNanos;
                while (running && left > 0) {
                    left = requested.awaitNanos(left);
                }
            }
            syncRequested = false;
            return running;
        } catch (InterruptedException e) {
            return false;
        } finally {
            lock.unlock();
        }
    }

    private void publish(long sequence, IOException error) {
        long durable;
        lock.lock();
        try {
            if (sequence > durableSequence) {
                durableSequence = sequence;
            }
            if (error != null) {
                failure = error;
            }
            durable = durableSequence;
            advanced.signalAll();
        } finally {
            lock.unlock();
        }
        DurableListener l = listener;
        if (l != null) {
            l.durable(durable, error);
        }
    }

    /** Stops the thread and waits for it; then marks {@code finalSequence} durable (the log forced it). */
    void stop() {
        lock.lock();
        try {
            running = false;
            requested.signal();
        } finally {
            lock.unlock();
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Marks everything up to {@code sequence} durable and wakes every waiter (close forced it). */
    void finish(long sequence) {
        publish(sequence, null);
    }

    /** @return the failure that stopped the flusher, or null */
    IOException failure() {
        lock.lock();
        try {
            return failure;
        } finally {
            lock.unlock();
        }
    }
}
