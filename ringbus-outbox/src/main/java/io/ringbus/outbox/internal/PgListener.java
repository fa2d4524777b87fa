package io.ringbus.outbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection that LISTENs on an outbox's channel and wakes the outbox's relays on each
 * NOTIFY (sent by the insert trigger when an appending transaction commits). One per outbox, so
 * relays do not each hold a connection for it; its thread starts with the first relay. When the
 * connection fails it reconnects with backoff and wakes the relays once connected, since
 * notifications sent while it was away are lost; the relays' polling covers the gap. It LISTENs
 * only while some relay is idle (see {@link #register}).
 */
public final class PgListener implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(PgListener.class);
    private static final int WAIT_MILLIS = 10;

    private final DataSource dataSource;
    private final String channel;
    private final List<Registration> relays = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * @param dataSource where the outbox lives
     * @param channel    the outbox's notification channel
     */
    public PgListener(DataSource dataSource, String channel) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.thread = Thread.ofPlatform().name("ringbus-outbox-listen-" + channel).daemon(true).unstarted(this);
    }

    /**
     * Wakes {@code wakeUp} on each notification from now on; starts listening on first use.
     *
     * @param wakeUp what to run (quick, non-blocking)
     * @param busy   whether the relay is polling on its own because rows keep coming: while every
     *               registered relay is busy the connection does not LISTEN (a listener that
     *               receives a NOTIFY per commit slows a busy database down: p99 commit-to-delivery
     *               at 1,000 commits/s went from ~5 ms to ~50 ms here), and it LISTENs again, then
     *               wakes the relays once, as soon as one is idle
     */
    public void register(Runnable wakeUp, BooleanSupplier busy) {
        relays.add(new Registration(wakeUp, busy));
        if (started.compareAndSet(false, true)) {
            thread.start();
        }
    }

    /**
     * @param wakeUp a callback given to {@link #register}
     */
    public void unregister(Runnable wakeUp) {
        relays.removeIf(r -> r.wakeUp() == wakeUp);
    }

    private void wakeUp() {
        for (Registration relay : relays) {
            relay.wakeUp().run();
        }
    }

    private boolean anyIdle() {
        for (Registration relay : relays) {
            if (!relay.busy().getAsBoolean()) {
                return true;
            }
        }
        return false;
    }

    private record Registration(Runnable wakeUp, BooleanSupplier busy) {
    }

    @Override
    public void run() {
        long backoff = RelayLoop.RECONNECT_MILLIS.initial();
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                PGConnection pg = connection.unwrap(PGConnection.class);
                backoff = RelayLoop.RECONNECT_MILLIS.initial();
                boolean listening = false;
                wakeUp(); // notifications sent while there was no connection are lost: look once
                while (!closed) {
                    boolean wanted = anyIdle();
                    if (wanted != listening) {
                        try (Statement statement = connection.createStatement()) {
                            statement.execute((wanted ? "LISTEN " : "UNLISTEN ") + channel);
                        }
                        listening = wanted;
                        if (listening) {
                            wakeUp(); // commits between the relay going idle and this LISTEN
                        }
                    }
                    PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
                    if (notifications != null && notifications.length > 0) {
                        wakeUp();
                    }
                }
            } catch (SQLException e) {
                if (closed) {
                    return;
                }
                LOG.warn("outbox LISTEN {} lost its connection, reconnecting in {} ms: {}", channel, backoff, e.toString());
                sleep(backoff);
                backoff = RelayLoop.RECONNECT_MILLIS.next(backoff);
            }
        }
    }

    /** Stops listening (waits up to a second). */
    public void close() {
        closed = true;
        if (!started.get()) {
            return;
        }
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            closed = true;
        }
    }
}
