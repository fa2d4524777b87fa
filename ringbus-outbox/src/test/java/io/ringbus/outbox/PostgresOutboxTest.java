package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Headers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The outbox contract on the machine's PostgreSQL, in a schema of its own, plus NOTIFY. */
class PostgresOutboxTest extends OutboxContractTest {
    private final String schema = TestDatabases.uniqueSchema();

    @Override
    OutboxBuilder configure(OutboxBuilder builder) {
        return builder.jdbcUrl(TestDatabases.PG_URL).schema(schema);
    }

    @Override
    void dropDatabase() throws SQLException {
        TestDatabases.dropPgSchema(schema);
    }

    /**
     * The default settle on PostgreSQL: the claim deletes its rows and the commit after delivery
     * settles them. A batch with a failure is rolled back and settled row by row: the delivered rows
     * deleted (not delivered again), the failed one retried then dead-lettered, and the rows of its
     * key behind it held back until then.
     */
    @Test
    void deletingClaimRetriesDeadLettersAndHoldsAKeyBehindItsFailedRow() throws Exception {
        RecordingSink sink = new RecordingSink();
        sink.answer(e -> new String(e.payload(), StandardCharsets.UTF_8).equals("poison")
                ? CompletableFuture.failedFuture(new IllegalStateException("cannot handle"))
                : CompletableFuture.completedFuture(null));
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, "k.a", "A", bytes("poison"));
            outbox.append(c, "k.a", "A", bytes("after poison"));
            for (int i = 0; i < 30; i++) {
                outbox.append(c, "k.b", "B" + (i % 3), bytes("b" + i));
            }
            outbox.append(c, "k.n", null, bytes("no key"));
            c.commit();
        }
        Relay relay = start(outbox.relay().sink(sink).batchSize(100).parallelBatches(1)
                .retryPolicy(new RetryPolicy(2, Duration.ofMillis(500), Duration.ofMillis(500), 0)));
        Await.until("other keys delivered", () -> delivered(sink).size() == 31);
        assertThat(delivered(sink)).doesNotContain("after poison");
        assertThat(counts()).as("the delivered rows deleted, the failed one and its key's next pending")
                .isEqualTo(new OutboxCounts(2, 0, 0));
        Await.until("poison dead, next row of its key delivered", () -> delivered(sink).contains("after poison"));
        Await.until("settled", () -> counts().equals(new OutboxCounts(0, 0, 1)));
        List<String> forA = sink.received.stream().filter(e -> "A".equals(e.key()))
                .map(e -> new String(e.payload(), StandardCharsets.UTF_8)).toList();
        assertThat(forA).containsExactly("poison", "poison", "after poison");
        assertThat(sink.received).as("a rolled-back batch's delivered rows are not delivered again").hasSize(34);
        DeadLetter dead = outbox.deadLetters().list(0, 10).get(0);
        assertThat(dead.event().attempts()).isEqualTo(2);
        assertThat(dead.lastError()).contains("attempt 2").contains("cannot handle");
        Await.until("relay counted", () -> relay.stats().delivered() == 32 && relay.stats().deadLettered() == 1
                && relay.stats().retried() == 1);
    }

    /**
     * Appends wake an idle relay, but not one that found rows lately and looks again at its busy
     * pace anyway: under a steady stream of small commits the rows gather into batches, about one
     * per busy interval, instead of one claim and one commit per append or two.
     */
    @Test
    void appendsDoNotCutTheBusyPaceShortSoBatchesGrowWithTheLoad() throws Exception {
        RecordingSink sink = new RecordingSink();
        Relay relay = outbox.relay().sink(sink).parallelBatches(1).pollInterval(Duration.ofMillis(200))
                .busyPollInterval(Duration.ofMillis(20)).start();
        relays.add(relay);
        long start = System.nanoTime();
        int appended = 0;
        while (System.nanoTime() - start < Duration.ofSeconds(1).toNanos()) {
            outbox.publish("steady.stream", "k" + (appended % 10), bytes("e" + appended), Headers.EMPTY);
            appended++;
        }
        long elapsedMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        int total = appended;
        Await.until("all delivered", () -> sink.received.size() == total);
        assertThat(total).as("enough appends to tell one claim per append from one per interval").isGreaterThan(200);
        // One batch per 20 ms while appending, plus a few for the wake-up and the tail.
        assertThat(relay.stats().batches()).as("%d rows appended in %d ms", total, elapsedMillis)
                .isLessThanOrEqualTo(elapsedMillis / 20 + 10);
    }

    /**
     * A backlog's first rows go out after a short claim ({@code RelayLoop.FIRST_CLAIM} rows), not
     * after a whole batch is claimed and deleted; the claims then double up to the batch size.
     */
    @Test
    void aBacklogsFirstClaimIsShortSoItsFirstRowsGoOutAtOnce() throws Exception {
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 1_000; i++) {
                outbox.append(c, "backlog.row", "k" + (i % 50), bytes("e" + i));
            }
            c.commit();
        }
        java.util.concurrent.CountDownLatch first = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger delivered = new java.util.concurrent.atomic.AtomicInteger();
        OutboxSink holdingFirst = new OutboxSink() {
            @Override
            public String name() {
                return "holding-first";
            }

            @Override
            public int maxConcurrency() {
                return 16;
            }

            @Override
            public java.util.concurrent.CompletionStage<?> deliver(OutboxEvent event) {
                first.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                delivered.incrementAndGet();
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public void close() {
            }
        };
        Relay relay = outbox.relay().sink(holdingFirst).parallelBatches(1).batchSize(500).start();
        relays.add(relay);
        assertThat(first.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(relay.stats().inFlight()).as("rows the first claim took (at most one from each of 32 buckets)")
                .isBetween(1L, 32L);
        release.countDown();
        Await.until("the backlog delivered", () -> delivered.get() == 1_000);
        Await.until("settled", () -> counts().equals(new OutboxCounts(0, 0, 0)));
        assertThat(relay.stats().batches()).as("32, 64, 128, 256, then batches of 500").isGreaterThanOrEqualTo(6);
    }

    @Test
    void notifyWakesAnIdleRelayLongBeforeItsPollInterval() throws Exception {
        RecordingSink sink = new RecordingSink();
        Relay relay = outbox.relay().sink(sink).pollInterval(Duration.ofHours(1)).start();
        relays.add(relay);
        Thread.sleep(500); // the relay has polled once and now waits for NOTIFY
        for (int i = 0; i < 3; i++) {
            // Past the relay's busy polling (50 ms after it last found rows), when only NOTIFY
            // wakes it; meanwhile its LISTEN connection has listened again.
            Thread.sleep(300);
            outbox.publish("wake.up", null, bytes("n" + i), Headers.EMPTY);
            int expected = i + 1;
            Await.until("NOTIFY wakes the relay", Duration.ofSeconds(20), () -> sink.received.size() == expected);
        }
        assertThat(sink.received).hasSize(3);
    }

    /**
     * A large backlog of archived rows past the retention (the first sweep after a long outage, or
     * after the retention was shortened) is swept a bounded pass at a time between batches: a row
     * appended meanwhile is delivered long before the sweep is done, not after it.
     */
    @Test
    void aLargeExpiredArchiveIsSweptBetweenBatchesNotBeforeThem() throws Exception {
        int expired = 200_000;
        String archive = outbox.statements().sql().table() + "_archive";
        fillExpiredArchive(outbox, archive, expired);
        // What is left of the backlog when the new row reaches the sink.
        java.util.concurrent.atomic.AtomicLong leftAtDelivery = new java.util.concurrent.atomic.AtomicLong(-1);
        RecordingSink sink = new RecordingSink();
        sink.answer(e -> {
            leftAtDelivery.set(rowsIn(archive, "id < 0"));
            return CompletableFuture.completedFuture(null);
        });
        start(outbox.relay().archiveDelivered(true).parallelBatches(1).sink(sink));
        Await.until("the sweep started", () -> rowsIn(archive, "id < 0") < expired);
        outbox.publish("audit.during", "k", bytes("during the sweep"), Headers.EMPTY);
        Await.until("delivered and archived", () -> rowsIn(archive, "id > 0") == 1);
        assertThat(leftAtDelivery.get()).as("expired rows left when the new row was delivered").isPositive();
        Await.until("the sweep goes on to the end", Duration.ofSeconds(60), () -> rowsIn(archive, "id < 0") == 0);
    }

    /** Inserts {@code rows} archived rows (ids -1, -2, ...) past the default retention of 7 days. */
    static void fillExpiredArchive(Outbox outbox, String archive, int rows) throws SQLException {
        try (Connection c = outbox.dataSource().getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + archive + " (id, subject, msg_key, payload, headers, attempts, created_at,"
                    + " archived_at) SELECT -g, 'audit.old', 'k' || (g % 100), convert_to(repeat('x', 200), 'UTF8'), NULL,"
                    + " 0, now() - interval '9 days', now() - interval '8 days' + g * interval '1 ms'"
                    + " FROM generate_series(1, " + rows + ") g");
            s.execute("ANALYZE " + archive);
        }
    }

    private long rowsIn(String table, String where) {
        try (Connection c = outbox.dataSource().getConnection(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
