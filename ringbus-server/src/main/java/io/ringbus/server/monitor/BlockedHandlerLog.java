package io.ringbus.server.monitor;

import io.ringbus.core.BlockedHandler;
import io.ringbus.core.BlockedHandlerListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps the broker's most recent watchdog warnings for the dashboard, and logs each one at WARN
 * with the blocked stack, as the broker's default listener does. Register it when building the
 * broker and pass it to the server:
 *
 * <pre>{@code
 * BlockedHandlerLog blocked = new BlockedHandlerLog(50);
 * Broker broker = Broker.builder().blockedHandlerListener(blocked).build();
 * RingbusServer.start(broker, config, MonitorSources.builder().blockedHandlers(blocked).build());
 * }</pre>
 *
 * <p>A handler that stays blocked is reported again at every watchdog check; its entry is then
 * updated in place (same thread, same subscription) instead of filling the log. Thread-safe:
 * the watchdog thread writes, the monitor reads; neither waits long (a lock around a small
 * bounded deque).
 */
public final class BlockedHandlerLog implements BlockedHandlerListener {
    private static final Logger LOG = LoggerFactory.getLogger(BlockedHandlerLog.class);

    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Entry> recent;

    /**
     * One warning as recorded.
     *
     * @param epochMillis  when it was (last) raised
     * @param warning      the watchdog's warning
     */
    public record Entry(long epochMillis, BlockedHandler warning) {
    }

    /**
     * @param capacity how many recent warnings to keep, 1..10,000
     * @throws IllegalArgumentException when out of range
     */
    public BlockedHandlerLog(int capacity) {
        if (capacity < 1 || capacity > 10_000) {
            throw new IllegalArgumentException("capacity must be in 1..10000: capacity=" + capacity);
        }
        this.capacity = capacity;
        this.recent = new ArrayDeque<>(capacity);
    }

    /** Watchdog thread: records and logs the warning; never throws. */
    @Override
    public void onBlocked(BlockedHandler warning) {
        Entry entry = new Entry(System.currentTimeMillis(), warning);
        lock.lock();
        try {
            Entry last = recent.peekLast();
            if (last != null && last.warning().threadName().equals(warning.threadName())
                    && last.warning().subscription() == warning.subscription()) {
                recent.pollLast();
            } else if (recent.size() == capacity) {
                recent.pollFirst();
            }
            recent.addLast(entry);
        } finally {
            lock.unlock();
        }
        Throwable where = new Throwable("stack of the blocked handler");
        where.setStackTrace(warning.stackTrace());
        LOG.warn("handler blocked for {} ms (limit {} ms) on thread {}{}, subject '{}', {}",
                warning.elapsed().toMillis(), warning.limit().toMillis(), warning.threadName(),
                warning.virtual() ? " (virtual)" : "", warning.subject(), warning.subscription(), where);
    }

    /** @return the recent warnings, oldest first */
    public List<Entry> recent() {
        lock.lock();
        try {
            return new ArrayList<>(recent);
        } finally {
            lock.unlock();
        }
    }
}
