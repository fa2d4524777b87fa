package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.Headers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox's contract, run against each database ({@link H2OutboxTest}, {@link PostgresOutboxTest}).
 */
abstract class OutboxContractTest {
    Outbox outbox;
    final List<Relay> relays = new ArrayList<>();

    abstract OutboxBuilder configure(OutboxBuilder builder);

    @BeforeEach
    void open() throws SQLException {
        outbox = configure(Outbox.builder()).open();
    }

    @AfterEach
    void close() throws SQLException {
        relays.forEach(r -> r.close(Duration.ofSeconds(10)));
        outbox.close();
        dropDatabase();
    }

    /** Called after the relays and the outbox closed. */
    void dropDatabase() throws SQLException {
    }

    Relay start(RelayBuilder builder) {
        Relay relay = builder.pollInterval(Duration.ofMillis(20)).start();
        relays.add(relay);
        return relay;
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void deliversCommittedRowsAndNeverRolledBackOnes() throws Exception {
        RecordingSink sink = new RecordingSink();
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, "orders.created", "order-1", bytes("rolled back"));
            c.rollback();
            outbox.append(c, "orders.created", "order-1", bytes("committed"), Headers.of("Trace", "t-1"));
            c.commit();
        }
        start(outbox.relay().deleteDelivered(false).sink(sink));
        Await.until("one delivery", () -> sink.received.size() == 1);
        Thread.sleep(200);
        assertThat(sink.received).hasSize(1);
        OutboxEvent event = sink.received.get(0);
        assertThat(new String(event.payload(), StandardCharsets.UTF_8)).isEqualTo("committed");
        assertThat(event.subject()).isEqualTo("orders.created");
        assertThat(event.key()).isEqualTo("order-1");
        assertThat(event.headers().first("Trace")).isEqualTo("t-1");
        Headers sent = event.headersWithEventId();
        assertThat(sent.first(OutboxEvent.EVENT_ID_HEADER)).isEqualTo(event.eventId()).isEqualTo(String.valueOf(event.id()));
        assertThat(sent.first(OutboxEvent.KEY_HEADER)).isEqualTo("order-1");
        Await.until("row marked delivered", () -> counts().delivered() == 1 && counts().pending() == 0);
    }

    @Test
    void rowIsInvisibleToRelaysUntilItsTransactionCommits() throws Exception {
        RecordingSink sink = new RecordingSink();
        start(outbox.relay().deleteDelivered(false).sink(sink));
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, "a.b", null, bytes("x"));
            Thread.sleep(300);
            assertThat(sink.received).isEmpty();
            c.commit();
        }
        Await.until("delivered after commit", () -> sink.received.size() == 1);
    }

    @Test
    void deliversEachKeyInCommitOrderWithFourRelaysAndNoDuplicates() throws Exception {
        int keys = 8;
        int perWriter = 400;
        int writers = 4;
        Random random = new Random(42);
        RecordingSink sink = new RecordingSink(8);
        ExecutorService async = Executors.newFixedThreadPool(4);
        // Completes later, on another thread, so that deliveries of different keys overlap.
        sink.answer(e -> CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(
                random.nextInt(3), TimeUnit.MILLISECONDS, async)));
        for (int i = 0; i < 4; i++) {
            // r0 has three batches in flight at once: its loops exclude each other as relays do.
            start(outbox.relay().deleteDelivered(false).name("r" + i).batchSize(50).parallelBatches(i == 0 ? 3 : 1).sink(sink));
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            done.add(pool.submit(() -> {
                for (int i = 0; i < perWriter; i += 4) {
                    try (Connection c = outbox.dataSource().getConnection()) {
                        c.setAutoCommit(false);
                        // Keys in a consistent (sorted) order, as with any row locks: appends lock their key.
                        List<String> txKeys = new ArrayList<>();
                        for (int j = 0; j < 4; j++) {
                            txKeys.add("k" + ((i + j + writer) % keys));
                        }
                        txKeys.sort(null);
                        for (String key : txKeys) {
                            outbox.append(c, "orders.updated", key, bytes(writer + ":" + i));
                        }
                        c.commit();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        int total = writers * perWriter;
        Await.until("all " + total + " delivered", Duration.ofSeconds(60), () -> sink.received.size() >= total);
        Thread.sleep(200);
        async.shutdown();
        assertThat(sink.received).hasSize(total);
        Map<String, Long> last = new HashMap<>();
        for (OutboxEvent event : sink.received) {
            Long previous = last.put(event.key(), event.id());
            if (previous != null) {
                assertThat(event.id()).as("key %s delivered in id order", event.key()).isGreaterThan(previous);
            }
        }
        assertThat(sink.received.stream().map(OutboxEvent::id).distinct().count()).isEqualTo(total);
        long byRelays = relays.stream().mapToLong(r -> r.stats().delivered()).sum();
        Await.until("relay counters settle", () -> relays.stream().mapToLong(r -> r.stats().delivered()).sum() == total);
        assertThat(byRelays).isLessThanOrEqualTo(total);
    }

    @Test
    void retriesWithBackoffThenDeadLettersAndRetryFromDeadLettersDelivers() throws Exception {
        RecordingSink sink = new RecordingSink();
        sink.answer(e -> CompletableFuture.failedFuture(new IllegalStateException("sink says no")));
        Relay relay = start(outbox.relay().deleteDelivered(false).sink(sink).countInterval(Duration.ofMillis(50))
                .retryPolicy(new RetryPolicy(3, Duration.ofMillis(50), Duration.ofMillis(200), 0)));
        long id = outbox.publish("payments.failed", "p-1", bytes("x"), Headers.EMPTY);
        Await.until("dead letter", () -> counts().dead() == 1);
        // The relay counts after its commit: wait for the counters, not only for the database.
        Await.until("relay counted it", () -> relay.stats().deadLettered() == 1);
        assertThat(sink.received).hasSize(3);
        // Backoff: 50 ms then 100 ms between the three attempts (no jitter).
        assertThat(relay.stats().retried()).isEqualTo(2);
        assertThat(relay.stats().deadLettered()).isEqualTo(1);
        DeadLetter dead = outbox.deadLetters().inspect(id).orElseThrow();
        assertThat(dead.lastError()).contains("attempt 3").contains("sink says no");
        assertThat(dead.event().attempts()).isEqualTo(3);
        assertThat(outbox.deadLetters().list(0, 10)).extracting(d -> d.event().id()).containsExactly(id);

        sink.answer(e -> CompletableFuture.completedFuture(null));
        assertThat(outbox.deadLetters().retry(id)).isTrue();
        Await.until("delivered after retry", () -> sink.received.size() == 4 && counts().delivered() == 1);
        assertThat(outbox.deadLetters().list(0, 10)).isEmpty();
        assertThat(outbox.deadLetters().retry(id)).as("no longer dead").isFalse();
    }

    @Test
    void permanentFailureDeadLettersAtOnceAndPurgeDeletes() throws Exception {
        RecordingSink sink = new RecordingSink();
        sink.answer(e -> CompletableFuture.failedFuture(new PermanentDeliveryException("HTTP 400")));
        start(outbox.relay().deleteDelivered(false).sink(sink));
        long first = outbox.publish("a.b", null, bytes("1"), Headers.EMPTY);
        long second = outbox.publish("a.b", null, bytes("2"), Headers.EMPTY);
        Await.until("two dead letters", () -> counts().dead() == 2);
        assertThat(sink.received).hasSize(2);
        assertThat(outbox.deadLetters().purge(first)).isTrue();
        assertThat(outbox.deadLetters().inspect(first)).isEmpty();
        assertThat(outbox.deadLetters().purgeAll()).isEqualTo(1);
        assertThat(outbox.deadLetters().inspect(second)).isEmpty();
        assertThat(counts()).isEqualTo(new OutboxCounts(0, 0, 0));
    }

    @Test
    void poisonRowBlocksOnlyItsOwnKey() throws Exception {
        RecordingSink sink = new RecordingSink();
        sink.answer(e -> new String(e.payload(), StandardCharsets.UTF_8).equals("poison")
                ? CompletableFuture.failedFuture(new IllegalStateException("cannot handle"))
                : CompletableFuture.completedFuture(null));
        start(outbox.relay().deleteDelivered(false).sink(sink).batchSize(10)
                .retryPolicy(new RetryPolicy(2, Duration.ofSeconds(2), Duration.ofSeconds(2), 0)));
        outbox.publish("k.a", "A", bytes("poison"), Headers.EMPTY);
        outbox.publish("k.a", "A", bytes("after poison"), Headers.EMPTY);
        for (int i = 0; i < 30; i++) {
            outbox.publish("k.b", "B" + (i % 3), bytes("b" + i), Headers.EMPTY);
        }
        outbox.publish("k.n", null, bytes("no key"), Headers.EMPTY);
        Await.until("other keys delivered", () -> delivered(sink).size() == 31);
        assertThat(delivered(sink)).doesNotContain("after poison");
        // After its attempts the poison row is dead and its key moves on.
        Await.until("poison dead, next row of its key delivered", () -> delivered(sink).contains("after poison"));
        assertThat(counts().dead()).isEqualTo(1);
        List<String> forA = sink.received.stream().filter(e -> "A".equals(e.key()))
                .map(e -> new String(e.payload(), StandardCharsets.UTF_8)).toList();
        assertThat(forA).containsExactly("poison", "poison", "after poison");
    }

    @Test
    void sinkDownKeepsTheBacklogInTheDatabase() throws Exception {
        RecordingSink sink = new RecordingSink(4);
        sink.answer(e -> CompletableFuture.failedFuture(new IllegalStateException("down")));
        Relay relay = start(outbox.relay().deleteDelivered(false).sink(sink).batchSize(20).parallelBatches(1)
                .countInterval(Duration.ofMillis(20))
                .retryPolicy(new RetryPolicy(100, Duration.ofMillis(200), Duration.ofSeconds(1), 0.5)));
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 500; i++) {
                outbox.append(c, "down.sink", null, bytes("e" + i));
            }
            c.commit();
        }
        Await.until("attempts made", () -> relay.stats().retried() >= 40);
        RelayStats stats = relay.stats();
        assertThat(stats.inFlight()).isLessThanOrEqualTo(20);
        assertThat(stats.sinks().get(0).inFlight() + stats.sinks().get(0).waiting()).isLessThanOrEqualTo(20);
        assertThat(counts().pending()).isEqualTo(500);
        Await.until("relay counts pending", () -> relay.stats().pending() == 500);
        sink.answer(e -> CompletableFuture.completedFuture(null));
        Await.until("backlog drained once the sink is back", Duration.ofSeconds(60), () -> counts().delivered() == 500);
    }

    @Test
    void deleteDeliveredModeAndRetentionSweep() throws Exception {
        RecordingSink sink = new RecordingSink();
        Relay deleting = start(outbox.relay().deleteDelivered(false).sink(sink).deleteDelivered(true));
        outbox.publish("x.y", "k", bytes("1"), Headers.EMPTY);
        Await.until("delivered and deleted", () -> sink.received.size() == 1 && counts().equals(new OutboxCounts(0, 0, 0)));
        deleting.close();
        relays.remove(deleting);
        start(outbox.relay().deleteDelivered(false).sink(sink).retention(Duration.ofMillis(300)).sweepInterval(Duration.ofMillis(100)));
        outbox.publish("x.y", "k", bytes("2"), Headers.EMPTY);
        Await.until("delivered", () -> sink.received.size() == 2);
        Await.until("swept after the retention", () -> counts().equals(new OutboxCounts(0, 0, 0)));
    }

    @Test
    void archiveTakesDeliveredRowsOutOfTheTableWithTheirDeletionAndIsSweptByTheRetention() throws Exception {
        assertThatThrownBy(() -> outbox.relay().sink(new RecordingSink()).deleteDelivered(false).archiveDelivered(true)
                .start()).isInstanceOf(IllegalStateException.class).hasMessageContaining("deleteDelivered(false)");
        RecordingSink sink = new RecordingSink();
        java.util.concurrent.atomic.AtomicBoolean failedOnce = new java.util.concurrent.atomic.AtomicBoolean();
        // The first attempt of "b" fails: its batch is rolled back, nothing of it archived yet.
        sink.answer(e -> e.key() != null && e.key().equals("b") && failedOnce.compareAndSet(false, true)
                ? CompletableFuture.failedFuture(new IllegalStateException("not now"))
                : CompletableFuture.completedFuture(null));
        outbox.publish("audit.a", "a", bytes("first"), Headers.of("Trace", "t-1"));
        outbox.publish("audit.b", "b", bytes("second"), Headers.EMPTY);
        outbox.publish("audit.c", null, bytes("third"), Headers.EMPTY);
        Relay archiving = start(outbox.relay().archiveDelivered(true).sink(sink)
                .retryPolicy(new RetryPolicy(5, Duration.ofMillis(50), Duration.ofMillis(100), 0)));
        Await.until("three delivered", () -> archiving.stats().delivered() == 3);
        assertThat(counts()).isEqualTo(new OutboxCounts(0, 0, 0));
        List<String> archived = archivedRows();
        assertThat(archived).containsExactly("audit.a|a|first|1|0", "audit.b|b|second|0|1", "audit.c|null|third|0|0");
        archiving.close();
        relays.remove(archiving);

        start(outbox.relay().archiveDelivered(true).sink(sink).retention(Duration.ofMillis(1))
                .sweepInterval(Duration.ofMillis(50)));
        Await.until("archive swept after the retention", () -> archivedRows().isEmpty());
    }

    /** @return subject|key|payload|headers present (1/0)|attempts of each archived row, in id order */
    private List<String> archivedRows() {
        List<String> rows = new ArrayList<>();
        try (Connection c = outbox.dataSource().getConnection(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT subject, msg_key, payload, headers, attempts, archived_at,"
                     + " created_at FROM " + outbox.statements().sql().table() + "_archive ORDER BY id")) {
            while (rs.next()) {
                assertThat(rs.getTimestamp(6)).isAfterOrEqualTo(rs.getTimestamp(7));
                rows.add(rs.getString(1) + "|" + rs.getString(2) + "|" + new String(rs.getBytes(3), StandardCharsets.UTF_8)
                        + "|" + (rs.getString(4) == null ? 0 : 1) + "|" + rs.getInt(5));
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the archive", e);
        }
        return rows;
    }

    @Test
    void badInputIsRejectedNamingTheValueAndLeavesTheTransactionUsable() throws Exception {
        RecordingSink sink = new RecordingSink();
        start(outbox.relay().deleteDelivered(false).sink(sink));
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, "good.one", "k", bytes("before"));
            assertThatThrownBy(() -> outbox.append(c, "orders.*", "k", bytes("x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders.*");
            assertThatThrownBy(() -> outbox.append(c, "orders created", "k", bytes("x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders created");
            assertThatThrownBy(() -> outbox.append(c, "big.one", "k", new byte[(1 << 20) + 1]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1048577").hasMessageContaining("big.one");
            assertThatThrownBy(() -> outbox.append(c, "a.b", "", bytes("x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
            assertThatThrownBy(() -> outbox.append(c, "a.b", "k\u0000", bytes("x")))
                    .as("a NUL PostgreSQL would refuse, after the transaction was spoiled")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+0000 at index 1");
            assertThatThrownBy(() -> outbox.append(c, "a.b", "k\r\nForged: yes", bytes("x")))
                    .as("a line break that would end up in the Ringbus-Key header")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+000D");
            outbox.append(c, "good.two", "k", bytes("after"));
            c.commit();
        }
        Await.until("both good rows delivered", () -> sink.received.size() == 2);
        assertThat(sink.received).extracting(OutboxEvent::subject).containsExactly("good.one", "good.two");

        Connection closed = outbox.dataSource().getConnection();
        closed.close();
        assertThatThrownBy(() -> outbox.append(closed, "a.b", null, bytes("x")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        try (Connection auto = outbox.dataSource().getConnection()) {
            auto.setAutoCommit(true);
            assertThatThrownBy(() -> outbox.append(auto, "a.b", null, bytes("x")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("auto-commit");
        }
        assertThat(counts().pending() + counts().delivered()).isEqualTo(2);
    }

    @Test
    void statsCountEachSinkWithLatencyAndThePendingBacklog() throws Exception {
        RecordingSink orders = new RecordingSink();
        RecordingSink other = new RecordingSink() {
            @Override
            public String name() {
                return "other";
            }
        };
        for (int i = 0; i < 30; i++) {
            outbox.publish(i % 3 == 0 ? "audit.x" : "orders.x", "k" + (i % 5), bytes("e" + i), Headers.EMPTY);
        }
        Relay relay = start(outbox.relay().deleteDelivered(false).route("orders.>", orders).route(">", other).countInterval(Duration.ofMillis(20)));
        Await.until("all delivered", () -> relay.stats().delivered() == 30);
        Await.until("pending counted as 0", () -> relay.stats().pending() == 0);
        RelayStats stats = relay.stats();
        assertThat(stats.sinks()).extracting(SinkStats::name).containsExactly("recording", "other");
        SinkStats first = stats.sinks().get(0);
        SinkStats second = stats.sinks().get(1);
        assertThat(first.delivered()).isEqualTo(20);
        assertThat(second.delivered()).isEqualTo(10);
        assertThat(orders.received).hasSize(20).allMatch(e -> e.subject().startsWith("orders."));
        assertThat(other.received).hasSize(10).allMatch(e -> e.subject().startsWith("audit."));
        assertThat(first.latencyP50Micros()).isPositive();
        assertThat(first.latencyMaxMicros()).isGreaterThanOrEqualTo(first.latencyP99Micros());
        assertThat(first.latencyP99Micros()).isGreaterThanOrEqualTo(first.latencyP50Micros());
        assertThat(stats.retried()).isZero();
        assertThat(stats.deadLettered()).isZero();
        assertThat(stats.inFlight()).isZero();
        assertThat(stats.batches()).isPositive();
        assertThat(stats.dead()).isZero();
    }

    @Test
    void reopeningAnExistingSchemaKeepsItsRows() throws Exception {
        outbox.publish("kept.row", null, bytes("x"), Headers.EMPTY);
        try (Outbox again = configure(Outbox.builder()).open()) {
            assertThat(again.counts().pending()).isEqualTo(1);
        }
    }

    OutboxCounts counts() {
        return TestDatabases.counts(outbox);
    }

    static List<String> delivered(RecordingSink sink) {
        // received minus the failed attempts is not tracked by the sink; for these tests a payload
        // is "delivered" when its delivery was answered with success, i.e. it is not "poison".
        return sink.received.stream().map(e -> new String(e.payload(), StandardCharsets.UTF_8))
                .filter(p -> !p.equals("poison")).toList();
    }
}
