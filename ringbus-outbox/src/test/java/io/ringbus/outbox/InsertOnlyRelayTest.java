package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.Headers;
import io.ringbus.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The insert-only layout on a PostgreSQL cluster of the test's own ({@code wal_level=logical}):
 * appends without a key lock, a WAL relay that delivers each row once in commit order per key and
 * truncates the partitions its slot has passed, dead letters kept and retried, and ids beyond the
 * partitions (no relay ran) delivered from the default partition.
 */
class InsertOnlyRelayTest {
    private static final int PARTITION_ROWS = 100;
    private static PrivatePostgres cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = PrivatePostgres.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Outbox open(String schema) throws SQLException {
        return Outbox.builder().jdbcUrl(cluster.jdbcUrl()).schema(schema).insertOnly(PARTITION_ROWS).open();
    }

    @Test
    void concurrentProducersRowsArriveOnceInCommitOrderPerKeyAndPassedPartitionsAreTruncated() throws Exception {
        String schema = TestDatabases.uniqueSchema();
        String slot = "s_" + schema;
        try (Outbox outbox = open(schema)) {
            assertThat(outbox.insertOnly()).isTrue();
            RecordingSink sink = new RecordingSink();
            int producers = 4;
            int perProducer = 300;
            try (Relay relay = outbox.relay().name("log").wal(slot).sink(sink).start()) {
                ExecutorService pool = Executors.newFixedThreadPool(producers);
                List<Future<List<Long>>> appended = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    int producer = p;
                    appended.add(pool.submit(() -> produce(outbox, producer, perProducer)));
                }
                Set<Long> ids = new HashSet<>();
                for (Future<List<Long>> f : appended) {
                    ids.addAll(f.get());
                }
                pool.shutdown();
                Await.until("every committed row delivered", Duration.ofSeconds(60),
                        () -> new HashSet<>(ids(sink)).containsAll(ids));
                // Passed partitions go once the sequence is 1.5 partitions beyond them: push it on.
                for (int i = 0; i < 3 * PARTITION_ROWS; i++) {
                    ids.add(outbox.publish("orders.created", null, bytes("tail " + i), Headers.EMPTY));
                }
                Await.until("the passed partitions truncated", Duration.ofSeconds(60),
                        () -> oldestPartitionStart(outbox, schema) > 5 * PARTITION_ROWS);
                Await.until("the tail delivered", Duration.ofSeconds(60), () -> new HashSet<>(ids(sink)).containsAll(ids));
                assertThat(rows(outbox, schema + ".ringbus_outbox")).as("rows retained")
                        .isLessThan(ids.size() - 4 * PARTITION_ROWS);
                assertThat(outbox.counts().pending()).as("the table cannot tell what is delivered").isEqualTo(-1);
                assertThat(relay.stats().delivered()).isEqualTo(ids.size());
            }
            assertThat(ids(sink)).as("each once").doesNotHaveDuplicates();
            assertCommitOrderPerKey(sink.received);
            dropSlot(outbox, slot);
        }
    }

    @Test
    void aPartitionWithAnOpenInsertIsKeptUntilItCommitsAndItsRowIsDelivered() throws Exception {
        String schema = TestDatabases.uniqueSchema();
        String slot = "s_" + schema;
        try (Outbox outbox = open(schema)) {
            RecordingSink sink = new RecordingSink();
            try (Relay relay = outbox.relay().name("open").wal(slot).sink(sink).start();
                 Connection open = outbox.dataSource().getConnection()) {
                // Streaming first: creating the slot waits for the transactions open at the time.
                outbox.publish("orders.created", null, bytes("first"), Headers.EMPTY);
                Await.until("streaming", () -> relay.stats().delivered() == 1);
                open.setAutoCommit(false);
                long late = outbox.append(open, "orders.created", "k", bytes("late"));
                String partition = partitionOf(outbox, schema, late, open);
                // The sequence moves far beyond the open row's partition, the relay delivers it all.
                for (int i = 0; i < 4 * PARTITION_ROWS; i++) {
                    outbox.publish("orders.created", null, bytes("after " + i), Headers.EMPTY);
                }
                Await.until("the rest delivered", Duration.ofSeconds(60),
                        () -> relay.stats().delivered() == 1 + 4 * PARTITION_ROWS);
                Thread.sleep(3_000); // three ticks of the partition keeper
                assertThat(oldestPartitionStart(outbox, schema)).as("the open insert's partition kept")
                        .isEqualTo(Long.parseLong(partition.substring(partition.lastIndexOf("_p") + 2)));
                open.commit();
                Await.until("the late row delivered", () -> ids(sink).contains(late));
                Await.until("then its partition pruned", Duration.ofSeconds(60),
                        () -> oldestPartitionStart(outbox, schema) > late);
            }
            dropSlot(outbox, slot);
        }
    }

    @Test
    void aDeadLetterStaysInItsPartitionAndARetryDeliversItAgainUnderItsId() throws Exception {
        String schema = TestDatabases.uniqueSchema();
        String slot = "s_" + schema;
        try (Outbox outbox = open(schema)) {
            RecordingSink sink = new RecordingSink().answer(e -> "poison".equals(text(e))
                    ? CompletableFuture.failedFuture(new PermanentDeliveryException("refused: poison"))
                    : CompletableFuture.completedFuture(null));
            long poison;
            try (Relay relay = outbox.relay().name("dead").wal(slot).sink(sink).start()) {
                poison = outbox.publish("orders.created", "k", bytes("poison"), Headers.EMPTY);
                Await.until("the poisoned row dead-lettered", () -> relay.stats().deadLettered() == 1);
                for (int i = 0; i < 5 * PARTITION_ROWS; i++) {
                    outbox.publish("orders.created", null, bytes("after " + i), Headers.EMPTY);
                }
                Await.until("the dead letter's partition pruned of its delivered rows", Duration.ofSeconds(60),
                        () -> rows(outbox, schema + "." + partitionOf(outbox, schema, poison)) == 1);
                assertThat(outbox.deadLetters().inspect(poison)).as("kept").isPresent();
                sink.answer(e -> CompletableFuture.completedFuture(null));
                int before = sink.received.size();
                assertThat(outbox.deadLetters().retry(poison)).isTrue();
                Await.until("the retried dead letter delivered", () -> sink.received.size() > before
                        && sink.received.getLast().id() == poison);
                assertThat(sink.received.getLast().eventId()).isEqualTo(String.valueOf(poison));
                assertThat(outbox.counts().dead()).isZero();
            }
            dropSlot(outbox, slot);
        }
    }

    @Test
    void rowsAppendedBeyondThePartitionsWhileNoRelayRanAreDeliveredFromTheDefaultPartition() throws Exception {
        String schema = TestDatabases.uniqueSchema();
        String slot = "s_" + schema;
        try (Outbox outbox = open(schema)) {
            Set<Long> ids = new HashSet<>();
            for (int i = 0; i < 6 * PARTITION_ROWS; i++) {
                ids.add(outbox.publish("orders.created", "k" + (i % 5), bytes("e" + i), Headers.EMPTY));
            }
            assertThat(rows(outbox, schema + ".ringbus_outbox_default")).as("beyond the 3 partitions made ahead")
                    .isEqualTo(3 * PARTITION_ROWS);
            RecordingSink sink = new RecordingSink();
            try (Relay relay = outbox.relay().name("late").wal(slot).sink(sink).start()) {
                Await.until("every row delivered", Duration.ofSeconds(60), () -> new HashSet<>(ids(sink)).containsAll(ids));
                for (int i = 0; i < 4 * PARTITION_ROWS; i++) {
                    ids.add(outbox.publish("orders.created", "k" + (i % 5), bytes("n" + i), Headers.EMPTY));
                }
                Await.until("the rows after it delivered", Duration.ofSeconds(60),
                        () -> new HashSet<>(ids(sink)).containsAll(ids));
                Await.until("the default partition emptied of delivered rows", Duration.ofSeconds(60),
                        () -> rows(outbox, schema + ".ringbus_outbox_default") == 0);
                Await.until("the passed partitions truncated", Duration.ofSeconds(60),
                        () -> oldestPartitionStart(outbox, schema) > 3 * PARTITION_ROWS);
                assertThat(relay.stats().delivered()).isGreaterThanOrEqualTo(ids.size());
            }
            assertThat(new HashSet<>(ids(sink))).isEqualTo(ids);
            assertCommitOrderPerKey(sink.received);
            dropSlot(outbox, slot);
        }
    }

    @Test
    void aRelayKilledWhileProducersRunLosesNothingAndItsSuccessorGoesOnPruning() throws Exception {
        String schema = TestDatabases.uniqueSchema();
        String slot = "s_" + schema;
        try (Outbox outbox = open(schema)) {
            List<Long> all = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean producing = new java.util.concurrent.atomic.AtomicBoolean(true);
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                for (int i = 0; producing.get(); i++) {
                    try {
                        all.add(outbox.publish("orders.created", "k" + (i % 7), bytes("k" + (i % 7) + ":" + i), Headers.EMPTY));
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            Set<Long> printed = new HashSet<>();
            try (RelayProcess doomed = RelayProcess.start("doomed", "--jdbc-url", cluster.jdbcUrl(), "--schema", schema,
                    "--wal", slot, "--batch-size", "50", "--sink-delay-ms", "1")) {
                doomed.awaitDelivered(4 * PARTITION_ROWS);
                doomed.kill();
                printed.addAll(doomed.deliveredIds());
            }
            RecordingSink sink = new RecordingSink();
            try (Relay survivor = outbox.relay().name("survivor").wal(slot).sink(sink).start()) {
                Await.until("the producer past the kill", Duration.ofSeconds(30), () -> all.size() > printed.size() + 6 * PARTITION_ROWS);
                producing.set(false);
                producer.get();
                Await.until("every committed row, by one relay or the other", Duration.ofSeconds(60), () -> {
                    Set<Long> seen = new HashSet<>(printed);
                    seen.addAll(ids(sink));
                    return seen.containsAll(all);
                });
                long last = all.getLast();
                Await.until("the survivor prunes what the stream passed", Duration.ofSeconds(60),
                        () -> oldestPartitionStart(outbox, schema) > last - 3 * PARTITION_ROWS);
                assertThat(survivor.stats().databaseErrors()).isZero();
            }
            // When the kill falls in its catch-up (the rows committed before its slot, read in id
            // order), the catch-up runs again in the survivor: rows also in the stream come twice.
            assertCommitOrderPerKey(sink.received.stream().filter(e -> !printed.contains(e.id())).toList());
            dropSlot(outbox, slot);
        }
    }

    @Test
    void theDocumentedSetupDeliversWhatIsAppended() throws Exception {
        String jdbcUrl = cluster.jdbcUrl();
        RecordingSink sink = new RecordingSink();
        // --8<-- [start:insertonly]
        Outbox outbox = Outbox.builder()
                .jdbcUrl(jdbcUrl)                 // PostgreSQL with wal_level=logical
                .insertOnly(1_000_000)            // ids per partition: a few minutes of appends
                .open();                          // creates the layout on a new (or empty) table
        Relay relay = outbox.relay().wal("orders_slot").sink(sink).start();
        // --8<-- [end:insertonly]
        try (outbox) {
            try (relay) {
                long id = outbox.publish("orders.created", "o-42", bytes("{}"), Headers.EMPTY);
                Await.until("the appended row delivered", () -> ids(sink).contains(id));
                assertThat(outbox.insertOnly()).isTrue();
            }
            dropSlot(outbox, "orders_slot");
        }
    }

    @Test
    void aSecondSlotOnTheTableIsRefusedNamingTheFirst() throws Exception {
        String schema = TestDatabases.uniqueSchema();
        String slot = "s_" + schema;
        try (Outbox outbox = open(schema)) {
            RecordingSink sink = new RecordingSink();
            try (Relay relay = outbox.relay().name("first").wal(slot).sink(sink).start()) {
                long id = outbox.publish("orders.created", null, bytes("x"), Headers.EMPTY);
                Await.until("the first relay streams", () -> ids(sink).contains(id));
                assertThatThrownBy(() -> outbox.relay().name("second").wal(slot + "_b").sink(new RecordingSink()).start())
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("is streamed through slot " + slot + ", so it cannot be through slot "
                                + slot + "_b too");
                assertThat(relay.stats().delivered()).isEqualTo(1);
            }
            dropSlot(outbox, slot);
            RecordingSink second = new RecordingSink();
            try (Relay again = outbox.relay().name("second").wal(slot + "_b").sink(second).start()) {
                long id = outbox.publish("orders.created", null, bytes("y"), Headers.EMPTY);
                Await.until("the second slot streams once the first is dropped", () -> ids(second).contains(id));
                assertThat(again.stats().delivered()).as("a new slot's catch-up delivers the rows still in the table"
                        + " again, then the new one").isEqualTo(2);
            }
            dropSlot(outbox, slot + "_b");
        }
    }

    @Test
    void theLayoutReplacesOnlyAnEmptyTableKeepsItsIdsAndRefusesAPollingRelay() throws Exception {
        String schema = TestDatabases.uniqueSchema();
        long lastPolled;
        try (Outbox polling = Outbox.builder().jdbcUrl(cluster.jdbcUrl()).schema(schema).open()) {
            lastPolled = polling.publish("orders.created", null, bytes("x"), Headers.EMPTY);
            assertThatThrownBy(() -> open(schema)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("outbox table " + schema + ".ringbus_outbox holds rows");
            try (Connection c = polling.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("DELETE FROM " + schema + ".ringbus_outbox");
            }
        }
        try (Outbox outbox = open(schema)) {
            long next = outbox.publish("orders.created", null, bytes("y"), Headers.EMPTY);
            assertThat(next).as("ids go on, so event ids are never reused").isGreaterThan(lastPolled);
            assertThatThrownBy(() -> outbox.relay().sink(new RecordingSink()).start())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("insert-only").hasMessageContaining("wal(slot)");
        }
        try (Outbox again = Outbox.builder().jdbcUrl(cluster.jdbcUrl()).schema(schema).open()) {
            assertThat(again.insertOnly()).as("an existing insert-only table is used as one").isTrue();
        }
    }

    private static List<Long> produce(Outbox outbox, int producer, int count) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < count; i++) {
                // Each key has one producer, so its commit order is the producer's order: "p-k:i".
                String key = producer + "-" + (i % 3);
                ids.add(outbox.append(c, "orders.created", key, bytes(key + ":" + i)));
                if (i % 4 == 3 || i == count - 1) {
                    c.commit();
                }
            }
        }
        return ids;
    }

    /** Each row's first delivery keeps its key's commit order (a redelivery, allowed, may come later). */
    private static void assertCommitOrderPerKey(List<OutboxEvent> events) {
        Map<String, Integer> last = new HashMap<>();
        Set<Long> seen = new HashSet<>();
        for (OutboxEvent event : events) {
            String text = text(event);
            int colon = text.indexOf(':');
            if (event.key() == null || colon < 0 || !seen.add(event.id())) {
                continue;
            }
            int n = Integer.parseInt(text.substring(colon + 1));
            Integer previous = last.put(event.key(), n);
            assertThat(previous == null || previous < n).as("key %s: %s after %s", event.key(), n, previous).isTrue();
        }
    }

    private static long oldestPartitionStart(Outbox outbox, String schema) {
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT min(substring(p.relname from '_p([0-9]+)$')::bigint) FROM pg_inherits i"
                     + " JOIN pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = '" + schema + ".ringbus_outbox'::regclass")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String partitionOf(Outbox outbox, String schema, long id) {
        try (Connection c = outbox.dataSource().getConnection()) {
            return partitionOf(outbox, schema, id, c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String partitionOf(Outbox outbox, String schema, long id, Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT tableoid::regclass::text FROM " + schema + ".ringbus_outbox WHERE id = " + id)) {
            rs.next();
            String name = rs.getString(1);
            return name.substring(name.indexOf('.') + 1);
        }
    }

    private static long rows(Outbox outbox, String table) {
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void dropSlot(Outbox outbox, String slot) throws SQLException {
        Await.until("slot " + slot + " released", () -> rows(outbox, "pg_replication_slots WHERE active AND slot_name = '"
                + slot + "'") == 0);
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_drop_replication_slot('" + slot + "')")) {
            rs.next();
        }
    }

    private static List<Long> ids(RecordingSink sink) {
        return sink.received.stream().map(OutboxEvent::id).toList();
    }

    private static String text(OutboxEvent event) {
        return new String(event.payload(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
