package io.ringbus.core.internal;

import io.ringbus.core.BlockedHandler;
import io.ringbus.core.BlockedHandlerListener;
import io.ringbus.core.ExecutionMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The blocked-thread watchdog: one platform thread that, every {@code interval}, looks at every
 * registered {@link HandlerProbe} (event loops, worker drainers and virtual-thread drainers
 * alike, so blocked virtual threads are seen too) and warns about each handler call that has
 * been running past its subscriber's limit, again at every check while it stays blocked.
 */
final class Watchdog implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);

    private final long intervalNanos;
    private final BlockedHandlerListener listener;
    private final List<HandlerProbe> permanent = new CopyOnWriteArrayList<>();
    private final Set<HandlerProbe> transientProbes = ConcurrentHashMap.newKeySet();
    /** Warnings by {@link ExecutionMode} ordinal. */
    private final LongAdder[] warnings = new LongAdder[ExecutionMode.values().length];
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stopped = lock.newCondition();
    private final Thread thread;
    private volatile boolean running = true;

    Watchdog(String name, Duration interval, BlockedHandlerListener listener) {
        this.intervalNanos = interval.toNanos();
        this.listener = listener != null ? listener : Watchdog::log;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this);
        for (int i = 0; i < warnings.length; i++) {
            warnings[i] = new LongAdder();
        }
    }

    void start() {
        thread.start();
    }

    /** Watches an event loop's probe for the broker's lifetime. */
    void watch(HandlerProbe probe) {
        permanent.add(probe);
    }

    /** Registers the calling drainer thread's probe until {@link #unregister}. */
    HandlerProbe register(ExecutionMode mode) {
        HandlerProbe probe = new HandlerProbe(mode, Thread.currentThread());
        transientProbes.add(probe);
        return probe;
    }

    void unregister(HandlerProbe probe) {
        transientProbes.remove(probe);
    }

    long warnings() {
        long total = 0;
        for (LongAdder count : warnings) {
            total += count.sum();
        }
        return total;
    }

    /** @return warnings raised about handlers running in {@code mode} */
    long warnings(ExecutionMode mode) {
        return warnings[mode.ordinal()].sum();
    }

    @Override
    public void run() {
        while (running) {
            lock.lock();
            try {
                if (running) {
                    stopped.awaitNanos(intervalNanos);
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            long now = System.nanoTime();
            for (HandlerProbe probe : permanent) {
                check(probe, now);
            }
            for (HandlerProbe probe : transientProbes) {
                check(probe, now);
            }
        }
    }

    private void check(HandlerProbe probe, long now) {
        long phase = probe.phaseAcquire();
        if ((phase & 1) == 0) {
            probe.watchedPhase = -1;
            return;
        }
        if (phase != probe.watchedPhase) {
            // First sight of this call: it started at most one interval ago.
            probe.watchedPhase = phase;
            probe.watchedSinceNanos = now;
            return;
        }
        Subscriber subscriber = probe.subscriber();
        String subject = probe.subject();
        Thread thread = probe.thread;
        if (subscriber == null || thread == null) {
            return;
        }
        long elapsed = now - probe.watchedSinceNanos;
        long limit = subscriber.maxExecuteNanos();
        if (elapsed <= limit) {
            return;
        }
        StackTraceElement[] stack = thread.getStackTrace();
        if (probe.phaseRecheck() != phase) {
            return; // the call ended meanwhile: the stack would be of something else
        }
        warnings[probe.mode.ordinal()].increment();
        BlockedHandler warning = new BlockedHandler(thread.getName(), thread.isVirtual(), probe.mode, subject,
                subscriber, Duration.ofNanos(elapsed), Duration.ofNanos(limit), stack);
        try {
            listener.onBlocked(warning);
        } catch (Throwable error) {
            LOG.error("blocked-handler listener threw; carrying on", error);
        }
    }

    private static void log(BlockedHandler warning) {
        Throwable where = new Throwable("stack of the blocked handler");
        where.setStackTrace(warning.stackTrace());
        LOG.warn("handler blocked for {} ms (limit {} ms) on thread {}{}, subject '{}', {}",
                warning.elapsed().toMillis(), warning.limit().toMillis(), warning.threadName(),
                warning.virtual() ? " (virtual)" : "", warning.subject(), warning.subscription(), where);
    }

    /** Stops the watchdog thread and waits for it. */
    void stop() {
        running = false;
        lock.lock();
        try {
            stopped.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
