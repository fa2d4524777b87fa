package io.ringbus.outbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection that LISTENs on the outbox's channel and wakes the relay on each NOTIFY
 * (sent by the insert trigger when an appending transaction commits). When the connection fails
 * it reconnects with backoff and wakes the relay once connected, since notifications sent while
 * it was away are lost; the relay's polling covers the gap.
 */
final class PgListener implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(PgListener.class);
    private static final int WAIT_MILLIS = 250;

    private final DataSource dataSource;
    private final String channel;
    private final Runnable wakeUp;
    private final Thread thread;
    private volatile boolean closed;

    PgListener(DataSource dataSource, String channel, Runnable wakeUp, String name) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.wakeUp = wakeUp;
        this.thread = Thread.ofPlatform().name("ringbus-outbox-listen-" + name).daemon(true).unstarted(this);
    }

    void start() {
        thread.start();
    }

    @Override
    public void run() {
        long backoff = 100;
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + channel);
                }
                PGConnection pg = connection.unwrap(PGConnection.class);
                backoff = 100;
                wakeUp.run();
                while (!closed) {
                    PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
                    if (notifications != null && notifications.length > 0) {
                        wakeUp.run();
                    }
                }
            } catch (SQLException e) {
                if (closed) {
                    return;
                }
                LOG.warn("outbox LISTEN {} lost its connection, reconnecting in {} ms: {}", channel, backoff, e.toString());
                sleep(backoff);
                backoff = Math.min(backoff * 2, 5_000);
            }
        }
    }

    void close() {
        closed = true;
        try {
            thread.join(WAIT_MILLIS * 4L);
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
