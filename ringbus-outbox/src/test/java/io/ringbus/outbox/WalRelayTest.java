package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.Headers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * WAL mode on a PostgreSQL cluster of the test's own with {@code wal_level=logical}: rows from the
 * replication stream in commit order, the slot as the position across restarts, a standby that
 * takes over, a killed relay and a restarted database that lose nothing.
 */
class WalRelayTest {
    private static PrivatePostgres cluster;
    private final String schema = TestDatabases.uniqueSchema();
    private final String slot = "s_" + schema;
    private Outbox outbox;

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

    @BeforeEach
    void open() throws SQLException {
        outbox = Outbox.builder().jdbcUrl(cluster.jdbcUrl()).schema(schema).open();
    }

    @AfterEach
    void close() throws SQLException {
        outbox.close();
    }

    @Test
    void deliversRowsPendingBeforeTheSlotThenTheStreamAndResumesWhereItStopped() throws Exception {
        List<Long> before = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            before.add(outbox.publish("orders.created", "k" + (i % 3), bytes("before " + i), Headers.EMPTY));
        }
        RecordingSink sink = new RecordingSink();
        Relay relay = outbox.relay().name("wal").wal(slot).sink(sink).start();
        Await.until("rows pending before the slot existed", () -> ids(sink).containsAll(before));

        List<Long> streamed = new ArrayList<>();
        try (Connection c = outbox.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 200; i++) {
                streamed.add(outbox.append(c, "orders.created", "k" + (i % 7), bytes("e" + i)));
                if (i % 10 == 9) {
                    c.commit();
                }
            }
            outbox.append(c, "orders.created", "k1", bytes("rolled back"));
            c.rollback();
        }
        Await.until("streamed rows", () -> ids(sink).containsAll(streamed));
        Await.until("delivered rows deleted", () -> TestDatabases.counts(outbox).pending() == 0);
        assertThat(relay.close(Duration.ofSeconds(10))).isTrue();
        assertThat(sink.received).noneMatch(e -> "rolled back".equals(text(e)));
        assertKeyOrder(sink.received);
        assertThat(sink.received).as("each once").hasSize(before.size() + streamed.size());

        List<Long> whileAway = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            whileAway.add(outbox.publish("orders.created", "k" + (i % 3), bytes("away " + i), Headers.EMPTY));
        }
        RecordingSink after = new RecordingSink();
        try (Relay again = outbox.relay().name("wal-again").wal(slot).sink(after).start()) {
            Await.until("rows committed while no relay streamed", () -> ids(after).containsAll(whileAway));
            Await.until("the restarted relay settles them", () -> again.stats().delivered() == whileAway.size());
            assertThat(ids(after)).as("the slot resumed where the clean stop confirmed")
                    .containsExactlyInAnyOrderElementsOf(whileAway);
        }
        dropSlot();
    }

    @Test
    void aRowStreamedBeforeItsCommitIsVisibleIsSettledOnceItIs() throws Exception {
        // The stream carries a commit once its WAL is flushed, before the committing session makes
        // it visible. A synchronous standby that never connects holds one commit in that state for
        // as long as the test likes: a relay that settled the row then would delete nothing and
        // leave it pending for ever, although delivered.
        systemSettings("ringbus_absent_standby", "ALTER SYSTEM SET synchronous_standby_names = 'ringbus_absent_standby'",
                "ALTER SYSTEM SET synchronous_commit = 'local'");
        RecordingSink sink = new RecordingSink();
        try (Relay relay = outbox.relay().name("early").wal(slot).sink(sink).start()) {
            long warm = outbox.publish("orders.created", "k", bytes("warm"), Headers.EMPTY);
            Await.until("the relay streams", () -> ids(sink).contains(warm));
            CompletableFuture<Long> held = CompletableFuture.supplyAsync(() -> {
                try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    s.execute("SET LOCAL synchronous_commit = on"); // waits for the absent standby
                    long id = outbox.append(c, "orders.created", "k", bytes("held"));
                    c.commit();
                    return id;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("the held commit flushed, waiting for the standby", () -> waitingForStandby() == 1);
            Thread.sleep(300); // time for the stream to carry it, and for a relay that does not wait to settle it
            assertThat(held).as("its commit has not returned").isNotDone();
            assertThat(sink.received).as("not delivered before it is visible").noneMatch(e -> "held".equals(text(e)));
            systemSettings("", "ALTER SYSTEM RESET synchronous_standby_names");
            long id = held.get(10, java.util.concurrent.TimeUnit.SECONDS);
            Await.until("the held row settled once visible", () -> TestDatabases.counts(outbox).pending() == 0);
            assertThat(ids(sink)).containsExactly(warm, id);
            assertThat(relay.stats().delivered()).isEqualTo(2);
        } finally {
            systemSettings("", "ALTER SYSTEM RESET synchronous_standby_names", "ALTER SYSTEM RESET synchronous_commit");
        }
        dropSlot();
    }

    /** Applies {@code ALTER SYSTEM} statements and waits until a new session sees the standby names. */
    private void systemSettings(String standbyNames, String... statements) throws SQLException {
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            for (String statement : statements) {
                s.execute(statement);
            }
            s.execute("SELECT pg_reload_conf()");
        }
        Await.until("synchronous_standby_names = '" + standbyNames + "'",
                () -> standbyNames.equals(setting("synchronous_standby_names")));
    }

    private long waitingForStandby() {
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private String setting(String name) {
        try (Connection c = java.sql.DriverManager.getConnection(cluster.jdbcUrl()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aStandbyTakesOverWhenTheStreamingRelayStops() throws Exception {
        RecordingSink first = new RecordingSink();
        RecordingSink second = new RecordingSink();
        Relay active = outbox.relay().name("active").wal(slot).sink(first).start();
        // The slot is free while its creator catches up: wait until the first relay streams it.
        Await.until("the first relay holds the slot", this::slotActive);
        long one = outbox.publish("orders.created", "k", bytes("one"), Headers.EMPTY);
        Await.until("the first relay streams", () -> ids(first).contains(one));
        Relay standby = outbox.relay().name("standby").wal(slot).sink(second).start();
        long two = outbox.publish("orders.created", "k", bytes("two"), Headers.EMPTY);
        Await.until("still the first relay", () -> ids(first).contains(two));
        assertThat(second.received).as("the standby streams nothing while the slot is busy").isEmpty();

        active.close(Duration.ofSeconds(10));
        long three = outbox.publish("orders.created", "k", bytes("three"), Headers.EMPTY);
        Await.until("the standby takes over", Duration.ofSeconds(20), () -> ids(second).contains(three));
        assertThat(ids(second)).as("nothing the first confirmed comes again").containsExactly(three);
        standby.close(Duration.ofSeconds(10));
        dropSlot();
    }

    @Test
    void archivesWithTheDeletionAndSweepsArchivedAndKeptRowsByTheRetention() throws Exception {
        RecordingSink sink = new RecordingSink();
        try (Relay relay = outbox.relay().name("wal-archive").wal(slot).sink(sink).archiveDelivered(true).start()) {
            for (int i = 0; i < 5; i++) {
                outbox.publish("orders.created", "k" + (i % 2), bytes("e" + i), Headers.EMPTY);
            }
            Await.until("delivered", () -> relay.stats().delivered() == 5);
            Await.until("moved to the archive", () -> archived() == 5 && TestDatabases.counts(outbox).pending() == 0);
        }
        try (Relay relay = outbox.relay().name("wal-keep").wal(slot).sink(sink).deleteDelivered(false)
                .retention(Duration.ofMillis(1)).sweepInterval(Duration.ofMillis(50)).start()) {
            outbox.publish("orders.created", "k", bytes("kept"), Headers.EMPTY);
            Await.until("delivered", () -> relay.stats().delivered() == 1);
            Await.until("kept and archived rows swept", () -> archived() == 0
                    && TestDatabases.counts(outbox).equals(new OutboxCounts(0, 0, 0)));
        }
        dropSlot();
    }

    /**
     * The WAL relay sweeps on its settle thread a bounded pass at a time: a batch streamed while a
     * large backlog of expired archived rows is being swept settles between two passes, not once
     * the whole backlog is gone.
     */
    @Test
    void aLargeExpiredArchiveHoldsSettlesUpForOneSweepPassOnly() throws Exception {
        int expired = 200_000;
        String archive = schema + ".ringbus_outbox_archive";
        PostgresOutboxTest.fillExpiredArchive(outbox, archive, expired);
        RecordingSink sink = new RecordingSink();
        try (Relay relay = outbox.relay().name("wal-sweep").wal(slot).sink(sink).archiveDelivered(true).start()) {
            Await.until("the sweep started", () -> expiredLeft() < expired);
            outbox.publish("orders.created", "k", bytes("during the sweep"), Headers.EMPTY);
            long[] newAndExpired = new long[2];
            Await.until("settled into the archive", () -> {
                try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE id > 0), count(*) FILTER (WHERE id < 0)"
                             + " FROM " + archive)) {
                    rs.next();
                    newAndExpired[0] = rs.getLong(1);
                    newAndExpired[1] = rs.getLong(2);
                    return newAndExpired[0] == 1;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(newAndExpired[1]).as("expired rows left when the new row settled").isPositive();
            Await.until("the sweep goes on to the end", Duration.ofSeconds(60), () -> expiredLeft() == 0);
            assertThat(relay.stats().databaseErrors()).isZero();
        }
        dropSlot();
    }

    private long expiredLeft() {
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + ".ringbus_outbox_archive WHERE id < 0")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the archive", e);
        }
    }

    private long archived() {
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + ".ringbus_outbox_archive")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the archive", e);
        }
    }

    @Test
    void failuresAreRetriedInPlaceKeepingKeyOrderThenDeadLettered() throws Exception {
        AtomicInteger failuresLeft = new AtomicInteger(2);
        RecordingSink sink = new RecordingSink().answer(e -> {
            if ("flaky".equals(text(e)) && failuresLeft.getAndDecrement() > 0) {
                return CompletableFuture.failedFuture(new IllegalStateException("not yet"));
            }
            if ("poison".equals(text(e))) {
                return CompletableFuture.failedFuture(new PermanentDeliveryException("never"));
            }
            return CompletableFuture.completedFuture(null);
        });
        try (Relay relay = outbox.relay().name("wal-retry").wal(slot).sink(sink)
                .retryPolicy(new RetryPolicy(5, Duration.ofMillis(20), Duration.ofMillis(50), 0.0)).start()) {
            try (Connection c = outbox.dataSource().getConnection()) {
                c.setAutoCommit(false);
                outbox.append(c, "orders.created", "A", bytes("flaky"));
                outbox.append(c, "orders.created", "A", bytes("after flaky"));
                outbox.append(c, "orders.created", "B", bytes("poison"));
                outbox.append(c, "orders.created", "B", bytes("after poison"));
                c.commit();
            }
            Await.until("all settled", () -> TestDatabases.counts(outbox).pending() == 0
                    && TestDatabases.counts(outbox).dead() == 1);
            assertThat(relay.stats().retried()).isEqualTo(2);
        }
        List<String> forA = sink.received.stream().filter(e -> "A".equals(e.key())).map(WalRelayTest::text).toList();
        assertThat(forA).containsExactly("flaky", "flaky", "flaky", "after flaky");
        assertThat(outbox.deadLetters().list(0, 10)).singleElement().satisfies(d -> assertThat(text(d.event()))
                .isEqualTo("poison"));
        dropSlot();
    }

    @Test
    void aKilledRelayAndARestartedDatabaseLoseNothing() throws Exception {
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            all.add(outbox.publish("orders.created", "k" + (i % 5), bytes("row " + i), Headers.EMPTY));
        }
        Set<Long> printed = new LinkedHashSet<>();
        try (RelayProcess doomed = RelayProcess.start("doomed", "--jdbc-url", cluster.jdbcUrl(), "--schema", schema,
                "--wal", slot, "--batch-size", "50", "--sink-delay-ms", "2")) {
            doomed.awaitDelivered(120);
            doomed.kill();
            printed.addAll(doomed.deliveredIds());
        }
        RecordingSink sink = new RecordingSink();
        try (Relay relay = outbox.relay().name("survivor").wal(slot).sink(sink).start()) {
            Await.until("the rest after the kill", Duration.ofSeconds(30), () -> {
                Set<Long> seen = new HashSet<>(printed);
                seen.addAll(ids(sink));
                return seen.containsAll(all);
            });
            cluster.stopServer();
            cluster.startServer();
            List<Long> afterRestart = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                afterRestart.add(publishRetrying("after restart " + i));
            }
            Await.until("rows after the database restart", Duration.ofSeconds(60), () -> ids(sink).containsAll(afterRestart));
            assertThat(relay.stats().databaseErrors()).as("the restart was seen").isPositive();
        }
        assertKeyOrder(sink.received);
        dropSlot();
    }

    @Test
    void walModeOnADatabaseWithoutLogicalWalLevelFailsAtStartNamingTheSetting() throws Exception {
        try (PrivatePostgres replica = PrivatePostgres.start("replica");
             Outbox plain = Outbox.builder().jdbcUrl(replica.jdbcUrl()).schema(schema).open()) {
            assertThatThrownBy(() -> plain.relay().wal("x").sink(new RecordingSink()).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("needs wal_level=logical").hasMessageContaining("has wal_level=replica");
        }
    }

    private long publishRetrying(String text) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                return outbox.publish("orders.created", "k", bytes(text), Headers.EMPTY);
            } catch (SQLException e) {
                if (attempt > 50) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private void dropSlot() throws SQLException {
        // A closed relay's walsender lets go of the slot a moment after the relay returns.
        Await.until("slot " + slot + " released", () -> !slotActive());
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_drop_replication_slot('" + slot + "')")) {
            rs.next();
        }
    }

    private boolean slotActive() {
        try (Connection c = outbox.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
            return rs.next() && rs.getBoolean(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void assertKeyOrder(List<OutboxEvent> events) {
        Map<String, Long> last = new HashMap<>();
        Set<Long> seen = new HashSet<>();
        for (OutboxEvent event : events) {
            if (seen.add(event.id())) {
                Long previous = last.put(event.key(), event.id());
                assertThat(previous == null || previous < event.id()).as("key %s: %s after %s", event.key(), event.id(),
                        previous).isTrue();
            }
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
