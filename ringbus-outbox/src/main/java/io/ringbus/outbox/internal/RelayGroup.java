package io.ringbus.outbox.internal;

import io.ringbus.outbox.RelayStats;
import io.ringbus.outbox.SinkStats;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * What a started relay is: its loops (one per batch it may have in flight), the sink channels they
 * share (so each sink's {@code maxConcurrency} bounds the whole relay), woken on PostgreSQL by the
 * outbox's LISTEN connection.
 */
public final class RelayGroup {
    private final RelaySettings settings;
    private final List<SinkChannel> channels = new ArrayList<>();
    private final List<RelayWorker> loops = new ArrayList<>();
    private final PgListener listener;
    private final Wakeups wakeups;
    private final Runnable wakeUp = this::wakeUp;
    /** Appends in this JVM: polling loops look at the busy pace for a while (the commit follows). */
    private final Runnable appended = this::appended;
    private final RelayMeters meters;

    /**
     * Builds and starts the relay.
     *
     * @param dataSource where the outbox lives
     * @param statements its statements
     * @param settings   the relay's configuration
     * @param listener   the outbox's LISTEN connection, or {@code null} to poll only
     * @param wakeups    the outbox's in-process wake-ups, which its appends trigger
     * @param wal        the replication slot to stream (a WAL relay), or {@code null} to poll
     * @param registry   a Micrometer {@code MeterRegistry} for the relay's meters, or {@code null}
     *                   (typed {@code Object} so that a relay without one never loads Micrometer)
     */
    public RelayGroup(DataSource dataSource, OutboxStatements statements, RelaySettings settings,
                      PgListener listener, Wakeups wakeups, WalRelayLoop.Source wal, Object registry) {
        this.settings = settings;
        this.wakeups = wakeups;
        Map<Object, SinkChannel> bySink = new IdentityHashMap<>();
        List<SinkChannel> routeChannels = new ArrayList<>();
        for (RelaySettings.Route route : settings.routes()) {
            SinkChannel channel = bySink.computeIfAbsent(route.sink(),
                    sink -> new SinkChannel(route.sink(), settings.deliveryTimeoutMillis()));
            routeChannels.add(channel);
            if (!channels.contains(channel)) {
                channels.add(channel);
            }
        }
        if (wal != null) {
            loops.add(new WalRelayLoop(dataSource, statements, settings, List.copyOf(routeChannels), wal));
        } else {
            for (int i = 0; i < settings.parallelBatches(); i++) {
                loops.add(new RelayLoop(dataSource, statements, settings, List.copyOf(routeChannels), i));
            }
        }
        this.listener = listener;
        // Before the loops start: the sink channels' latency listeners are plain fields.
        this.meters = registry == null ? null
                : new RelayMeters(registry, statements.sql().table(), this, List.copyOf(channels));
        loops.forEach(RelayWorker::start);
        if (listener != null) {
            listener.register(wakeUp, this::busy);
        }
        wakeups.register(appended);
    }

    /** @return the relay's name */
    public String name() {
        return settings.name();
    }

    private void appended() {
        for (RelayWorker loop : loops) {
            if (loop instanceof RelayLoop polling) {
                polling.appended();
            }
        }
    }

    /** Wakes every idle loop. */
    public void wakeUp() {
        for (RelayWorker loop : loops) {
            loop.wakeUp();
        }
    }

    /** @return pending rows at the last count, -1 before the first */
    long pending() {
        long pending = -1;
        for (RelayWorker loop : loops) {
            pending = Math.max(pending, loop.pending());
        }
        return pending;
    }

    /** @return dead letters at the last count, -1 before the first */
    long dead() {
        long dead = -1;
        for (RelayWorker loop : loops) {
            dead = Math.max(dead, loop.dead());
        }
        return dead;
    }

    /** @return rows of the current batches not yet settled */
    long inFlight() {
        long[] totals = new long[6];
        for (RelayWorker loop : loops) {
            loop.addTo(totals);
        }
        return totals[0];
    }

    /** @return whether a loop polls on its own because rows keep coming */
    private boolean busy() {
        for (RelayWorker loop : loops) {
            if (loop.busy()) {
                return true;
            }
        }
        return false;
    }

    /** @return the relay's counters, summed over its loops, and its sinks' figures */
    public RelayStats stats() {
        long[] totals = new long[6];
        long pending = -1;
        long dead = -1;
        for (RelayWorker loop : loops) {
            loop.addTo(totals);
            pending = Math.max(pending, loop.pending());
            dead = Math.max(dead, loop.dead());
        }
        List<SinkStats> sinks = new ArrayList<>(channels.size());
        for (SinkChannel channel : channels) {
            sinks.add(channel.stats());
        }
        return new RelayStats(settings.name(), pending, dead, totals[0], totals[1], totals[2], totals[3], totals[4],
                totals[5], List.copyOf(sinks));
    }

    /**
     * Stops every loop after its current batch.
     *
     * @param timeoutMillis how long to wait, or a negative value for the delivery timeout plus 5 s
     * @return whether all stopped in time
     */
    public boolean close(long timeoutMillis) {
        wakeups.unregister(appended);
        loops.forEach(RelayWorker::stop);
        if (listener != null) {
            listener.unregister(wakeUp);
        }
        long wait = timeoutMillis >= 0 ? timeoutMillis : settings.deliveryTimeoutMillis() + 5_000;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait);
        boolean stopped = true;
        for (RelayWorker loop : loops) {
            stopped &= loop.await(deadline);
        }
        if (meters != null) {
            meters.close();
        }
        return stopped;
    }
}
