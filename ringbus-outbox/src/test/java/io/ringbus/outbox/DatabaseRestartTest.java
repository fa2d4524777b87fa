package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Headers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A PostgreSQL restart under a running relay and a running writer, on a {@link PrivatePostgres}
 * cluster: the relay reconnects by itself, every committed row is delivered, and NOTIFY wakes the
 * relay again afterwards.
 */
@Timeout(120)
class DatabaseRestartTest {
    private static final int BACKLOG = 2_000;

    @Test
    void relayRidesOutARestartLosingNoCommittedRowAndNotifyWakesItAgain() throws Exception {
        try (PrivatePostgres postgres = PrivatePostgres.start();
             Outbox outbox = Outbox.builder().jdbcUrl(postgres.jdbcUrl()).schema(TestDatabases.uniqueSchema())
                     .connectionTimeout(Duration.ofMillis(500)).open()) {
            Set<Long> committed = ConcurrentHashMap.newKeySet();
            try (Connection c = outbox.dataSource().getConnection()) {
                c.setAutoCommit(false);
                for (int i = 0; i < BACKLOG; i++) {
                    committed.add(outbox.append(c, "orders.created", "order-" + (i % 50), bytes("backlog " + i)));
                }
                c.commit();
            }
            Set<Long> received = ConcurrentHashMap.newKeySet();
            // 1 ms a row: the backlog takes seconds, so the restart lands in the middle of deliveries.
            RecordingSink sink = new RecordingSink(1).answer(e -> {
                received.add(e.id());
                return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS));
            });
            // An hour between polls: after the first batches only NOTIFY (or a reconnect) wakes it.
            Relay relay = outbox.relay().sink(sink).batchSize(100).pollInterval(Duration.ofHours(1)).start();
            try {
                Await.until("deliveries under way", () -> received.size() >= 300);

                AtomicBoolean writing = new AtomicBoolean(true);
                AtomicLong failedAppends = new AtomicLong();
                AtomicLong appendsAfterRestart = new AtomicLong();
                AtomicBoolean restarted = new AtomicBoolean();
                Thread writer = Thread.ofPlatform().name("writer").start(() -> {
                    for (int i = 0; writing.get(); i++) {
                        try {
                            committed.add(outbox.publish("orders.paid", "order-" + (i % 50), bytes("live " + i), Headers.EMPTY));
                            if (restarted.get()) {
                                appendsAfterRestart.incrementAndGet();
                            }
                        } catch (SQLException e) {
                            failedAppends.incrementAndGet(); // the app sees the outage; the row is not committed
                        }
                        sleep(5);
                    }
                });
                try {
                    postgres.stopServer();
                    assertThat(received).as("the stop came before the backlog was through").hasSizeLessThan(BACKLOG);
                    Await.until("appends fail while the database is down", () -> failedAppends.get() > 0);
                    Await.until("the relay sees the outage", () -> relay.stats().databaseErrors() > 0);
                    sleep(500);
                    postgres.startServer();
                    restarted.set(true);
                    Await.until("appends succeed again", () -> appendsAfterRestart.get() >= 50);
                } finally {
                    writing.set(false);
                    writer.join(10_000);
                }

                Await.until("every committed row delivered", Duration.ofSeconds(60), () -> received.containsAll(committed));
                assertThat(relay.stats().databaseErrors()).isPositive();
                assertThat(failedAppends.get()).isPositive();

                // Idle now, with an hour to its next poll: only a NOTIFY can bring each of these.
                Await.until("the relay settles and idles", () -> relay.stats().inFlight() == 0);
                sleep(300);
                for (int i = 0; i < 3; i++) {
                    // Past the relay's busy polling (50 ms after it last found rows): NOTIFY's turn.
                    sleep(300);
                    long id = outbox.publish("orders.shipped", null, bytes("after restart " + i), Headers.EMPTY);
                    Await.until("NOTIFY delivers row " + id + " after the restart", Duration.ofSeconds(20),
                            () -> received.contains(id));
                }
                Await.until("all marked delivered", () -> counts(outbox).pending() == 0);
            } finally {
                relay.close(Duration.ofSeconds(10));
            }
        }
    }

    private static OutboxCounts counts(Outbox outbox) {
        try {
            return outbox.counts();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
