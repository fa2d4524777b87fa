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
    private final List<RelayLoop> loops = new ArrayList<>();
    private final PgListener listener;
    private final Runnable wakeUp = this::wakeUp;

    /**
     * Builds and starts the relay.
     *
     * @param dataSource where the outbox lives
     * @param statements its statements
     * @param settings   the relay's configuration
     * @param listener   the outbox's LISTEN connection, or {@code null} to poll only
     */
    public RelayGroup(DataSource dataSource, OutboxStatements statements, RelaySettings settings,
                      PgListener listener) {
        this.settings = settings;
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
        for (int i = 0; i < settings.parallelBatches(); i++) {
            loops.add(new RelayLoop(dataSource, statements, settings, List.copyOf(routeChannels), i));
        }
        this.listener = listener;
        loops.forEach(RelayLoop::start);
        if (listener != null) {
            listener.register(wakeUp);
        }
    }

    /** @return the relay's name */
    public String name() {
        return settings.name();
    }

    /** Wakes every idle loop. */
    public void wakeUp() {
        for (RelayLoop loop : loops) {
            loop.wakeUp();
        }
    }

    /** @return the relay's counters, summed over its loops, and its sinks' figures */
    public RelayStats stats() {
        long[] totals = new long[6];
        long pending = -1;
        long dead = -1;
        for (RelayLoop loop : loops) {
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
        loops.forEach(RelayLoop::stop);
        if (listener != null) {
            listener.unregister(wakeUp);
        }
        long wait = timeoutMillis >= 0 ? timeoutMillis : settings.deliveryTimeoutMillis() + 5_000;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait);
        boolean stopped = true;
        for (RelayLoop loop : loops) {
            stopped &= loop.await(deadline);
        }
        return stopped;
    }
}
