package io.ringbus.core.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executors that run WORKER and VIRTUAL handlers, created on first use (a broker without
 * such subscriptions starts no thread for them) and stopped together at close.
 */
final class HandlerExecutors {
    private static final Logger LOG = LoggerFactory.getLogger(HandlerExecutors.class);

    private final String name;
    private final int workerPoolSize;
    private final ReentrantLock lock = new ReentrantLock();
    private ExecutorService workerPool;
    private ExecutorService virtualExecutor;
    /** The worker pool's threads, joined at shutdown: a terminated pool's threads may still be exiting. */
    private final java.util.List<Thread> workerThreads = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * @param name           prefix of the thread names
     * @param workerPoolSize platform threads of the worker pool
     */
    HandlerExecutors(String name, int workerPoolSize) {
        this.name = name;
        this.workerPoolSize = workerPoolSize;
    }

    /** @return the fixed pool of platform threads for WORKER handlers */
    ExecutorService workerPool() {
        lock.lock();
        try {
            if (workerPool == null) {
                AtomicInteger number = new AtomicInteger();
                // The queue holds drain tasks, at most one per unordered-concurrency slot of each
                // subscription: bounded by the subscriptions, not by the messages.
                workerPool = new ThreadPoolExecutor(workerPoolSize, workerPoolSize, 0, TimeUnit.MILLISECONDS,
                        new LinkedBlockingQueue<>(), task -> {
                            Thread thread = new Thread(task, name + "-worker-" + number.getAndIncrement());
                            thread.setDaemon(true);
                            workerThreads.add(thread);
                            return thread;
                        });
            }
            return workerPool;
        } finally {
            lock.unlock();
        }
    }

    /** @return a virtual thread per task, for VIRTUAL handlers */
    ExecutorService virtualExecutor() {
        lock.lock();
        try {
            if (virtualExecutor == null) {
                virtualExecutor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(name + "-virtual-", 0).factory());
            }
            return virtualExecutor;
        } finally {
            lock.unlock();
        }
    }

    /** Interrupts what runs and waits up to 5 s for each executor (a handler may ignore interruption). */
    void shutdown() {
        lock.lock();
        try {
            shutdown(workerPool, "worker pool");
            shutdown(virtualExecutor, "virtual-thread executor");
            for (Thread thread : workerThreads) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(1));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            workerThreads.clear();
        } finally {
            lock.unlock();
        }
    }

    private static void shutdown(ExecutorService executor, String what) {
        if (executor == null) {
            return;
        }
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("{} did not stop within 5 s: a handler ignores interruption", what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
