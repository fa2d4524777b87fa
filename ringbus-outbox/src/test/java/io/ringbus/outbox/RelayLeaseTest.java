package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.Headers;
import io.ringbus.outbox.internal.ClaimedRow;
import io.ringbus.outbox.internal.Dialect;
import io.ringbus.outbox.internal.OutboxSql;
import io.ringbus.outbox.internal.OutboxStatements;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgreSQL's relays lease buckets of rows: relays that join and leave while producers append
 * share the buckets between them, keep each key's order, and lose nothing; a key's appends commit
 * in id order without a key row.
 */
class RelayLeaseTest {
    @RegisterExtension
    final OutboxOnPostgres db = new OutboxOnPostgres();

    @Test
    void relaysJoiningAndLeavingUnderLoadShareTheBucketsKeepKeyOrderAndLoseNothing() throws Exception {
        RecordingSink sink = new RecordingSink(64);
        List<Long> appended = new ArrayList<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            int i = 0;
            while (producing.get()) {
                try (Connection c = db.outbox().dataSource().getConnection()) {
                    c.setAutoCommit(false);
                    List<Long> ids = new ArrayList<>();
                    for (int j = 0; j < 10; j++, i++) {
                        ids.add(db.outbox().append(c, "orders.created", "k" + (i % 40), bytes("e" + i)));
                    }
                    c.commit();
                    synchronized (appended) {
                        appended.addAll(ids);
                    }
                    Thread.sleep(1);
                } catch (SQLException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        Duration lease = Duration.ofMillis(600);
        Relay first = db.outbox().relay().name("first").leaseTime(lease).batchSize(50).sink(sink).start();
        Await.until("the first relay holds every bucket", () -> owners().equals(Map.of("first", 64)));
        Relay second = db.outbox().relay().name("second").leaseTime(lease).batchSize(50).sink(sink).start();
        Relay third = db.outbox().relay().name("third").leaseTime(lease).batchSize(50).sink(sink).start();
        Await.until("three relays share the buckets fairly", () -> {
            Map<String, Integer> owners = owners();
            return owners.size() == 3 && owners.values().stream().allMatch(n -> n >= 20 && n <= 22);
        });
        Thread.sleep(300);
        assertThat(second.close(Duration.ofSeconds(10))).isTrue();
        Await.until("the two left take the leaver's buckets over",
                () -> owners().keySet().equals(Set.of("first", "third")) && owners().values().stream()
                        .mapToInt(Integer::intValue).sum() == 64);
        Thread.sleep(300);
        producing.set(false);
        producer.get(30, TimeUnit.SECONDS);
        int total;
        synchronized (appended) {
            total = appended.size();
        }
        Await.until("every appended row delivered", Duration.ofSeconds(60), () -> pending() == 0);
        first.close(Duration.ofSeconds(10));
        third.close(Duration.ofSeconds(10));

        Set<Long> delivered = new HashSet<>();
        Map<String, Long> lastByKey = new HashMap<>();
        for (OutboxEvent event : sink.received) {
            if (delivered.add(event.id())) {
                Long last = lastByKey.put(event.key(), event.id());
                assertThat(last == null || last < event.id()).as("key %s: %s after %s", event.key(), event.id(), last)
                        .isTrue();
            }
        }
        assertThat(delivered).as("nothing lost").containsExactlyInAnyOrderElementsOf(appended).hasSize(total);
        assertThat(sink.received).as("clean joins and leaves deliver nothing twice").hasSize(total);
    }

    @Test
    void aKeysSecondAppendWaitsForTheFirstToCommitSoIdsFollowCommitOrder() throws Exception {
        try (Connection first = db.outbox().dataSource().getConnection()) {
            first.setAutoCommit(false);
            long firstId = db.outbox().append(first, "orders.created", "same", bytes("first"));
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Long> second = CompletableFuture.supplyAsync(() -> {
                try (Connection c = db.outbox().dataSource().getConnection()) {
                    c.setAutoCommit(false);
                    started.countDown();
                    long id = db.outbox().append(c, "orders.created", "same", bytes("second"));
                    c.commit();
                    return id;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            // Another key is not held up by the open transaction.
            db.outbox().publish("orders.created", "other", bytes("other"), Headers.EMPTY);
            Thread.sleep(300);
            assertThat(second).as("the same key's append waits for the open transaction").isNotDone();
            first.commit();
            assertThat(second.get(10, TimeUnit.SECONDS)).isGreaterThan(firstId);
        }
    }

    @Test
    void theProducersCommitRunsNoTrigger() throws Exception {
        try (Connection c = db.outbox().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_trigger WHERE tgrelid = '" + db.schema()
                     + ".ringbus_outbox'::regclass AND NOT tgisinternal")) {
            rs.next();
            assertThat(rs.getInt(1)).as("no NOTIFY trigger on the outbox table").isZero();
        }
    }

    @Test
    void anEmptyPollLocksNothingAndRowsInFlightFenceTheirBucketAgainstATakeOver() throws Exception {
        OutboxStatements statements = new OutboxStatements(
                new OutboxSql(Dialect.POSTGRESQL, db.schema() + ".ringbus_outbox", "unused"));
        int[] buckets = IntStream.range(0, OutboxSql.BUCKETS).toArray();
        int[] limits = IntStream.range(0, OutboxSql.BUCKETS).map(b -> 10).toArray();
        try (Connection c = db.outbox().dataSource().getConnection(); Connection other = db.outbox().dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThat(statements.leaseRound(c, "a@test", 60_000, 1)).hasSize(OutboxSql.BUCKETS);
            c.commit();

            assertThat(statements.claimLeased(c, "a@test", buckets, limits, "t-")).isEmpty();
            assertThat(transactionId(c)).as("an empty poll took no lock: no transaction id, no WAL, no flush")
                    .isNull();
            c.commit();

            db.outbox().publish("orders.created", "k", bytes("x"), Headers.EMPTY);
            List<ClaimedRow> rows = statements.claimLeased(c, "a@test", buckets, limits, "t-");
            assertThat(rows).hasSize(1);
            int bucket = rows.get(0).bucket();
            try (Statement s = other.createStatement()) {
                s.execute("SET lock_timeout = '300ms'");
                assertThatThrownBy(() -> s.executeUpdate("UPDATE " + db.schema() + ".ringbus_outbox_bucket SET owner = 'b@test'"
                        + " WHERE bucket = " + bucket))
                        .as("the bucket of rows in flight cannot be taken over").isInstanceOf(SQLException.class)
                        .hasMessageContaining("lock timeout");
                s.executeUpdate("UPDATE " + db.schema() + ".ringbus_outbox_bucket SET owner = 'b@test' WHERE bucket <> "
                        + bucket);
            }
            c.commit();
            assertThat(statements.claimLeased(c, "b@test", buckets, limits, "t-"))
                    .as("a loop claiming buckets it does not hold gets none of their rows").isEmpty();
            c.rollback();
        }
    }

    @Test
    void theDeletingClaimSettlesByItsCommitAndARollbackGivesTheRowsBack() throws Exception {
        OutboxStatements statements = new OutboxStatements(
                new OutboxSql(Dialect.POSTGRESQL, db.schema() + ".ringbus_outbox", "unused"));
        int[] buckets = IntStream.range(0, OutboxSql.BUCKETS).toArray();
        int[] limits = IntStream.range(0, OutboxSql.BUCKETS).map(b -> 10).toArray();
        try (Connection c = db.outbox().dataSource().getConnection(); Connection other = db.outbox().dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThat(statements.leaseRound(c, "a@test", 60_000, 1)).hasSize(OutboxSql.BUCKETS);
            c.commit();
            assertThat(statements.claimLeased(c, "a@test", buckets, limits, "t-", true)).isEmpty();
            assertThat(transactionId(c)).as("an empty deleting poll took no lock and wrote nothing").isNull();
            c.commit();

            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                ids.add(db.outbox().publish("orders.created", "k" + (i % 7), bytes("e" + i), Headers.EMPTY));
            }
            List<ClaimedRow> rows = statements.claimLeased(c, "a@test", buckets, limits, "t-", true);
            assertThat(rows).extracting(r -> r.event().id()).as("every row, in id order").containsExactlyElementsOf(ids);
            assertThat(rows.get(0).event().payload()).isEqualTo(bytes("e0"));
            assertThat(rows.get(0).event().key()).isEqualTo("k0");
            assertThat(transactionId(c)).as("the deletion's row locks are the fence").isNotNull();
            assertThat(setting(c, "synchronous_commit")).as("a relay's commit does not wait for the WAL flush")
                    .isEqualTo("off");
            assertThat(setting(other, "synchronous_commit")).as("only the relay's own transaction").isEqualTo("on");
            int bucket = rows.get(0).bucket();
            List<Long> inBucket = rows.stream().filter(r -> r.bucket() == bucket).map(r -> r.event().id()).toList();
            // The ownership check wrote nothing: another member can take the bucket over at once...
            other.setAutoCommit(true);
            setOwner(other, bucket, "b@test");
            // ...but its deleting claim waits on the rows in flight.
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.execute("SET lock_timeout = '300ms'");
            }
            assertThatThrownBy(() -> statements.claimLeased(other, "b@test", buckets, limits, "t-", true))
                    .as("rows in flight cannot be claimed by the member that took their bucket over")
                    .isInstanceOf(SQLException.class).hasMessageContaining("lock timeout");
            other.rollback();
            assertThat(pending()).as("claimed rows stay pending for others until the claim commits").isEqualTo(30);
            c.rollback();
            assertThat(pending()).as("a rolled-back claim gives every row back").isEqualTo(30);
            assertThat(statements.claimLeased(other, "b@test", buckets, limits, "t-", true))
                    .extracting(r -> r.event().id()).as("after a rollback, the new owner takes the bucket's rows, in id order")
                    .containsExactlyElementsOf(inBucket);
            other.rollback();

            // A takeover while the batch commits: the new owner's claim waits, then skips what was settled.
            assertThat(statements.claimLeased(c, "a@test", buckets, limits, "t-", true)).hasSize(30 - inBucket.size());
            setOwner(other, bucket, "a@test");
            other.commit();
            assertThat(statements.claimLeased(c, "a@test", buckets, limits, "t-", true)).hasSize(inBucket.size());
            setOwner(other, bucket, "b@test");
            other.commit();
            long later = db.outbox().publish("orders.created", rows.get(0).event().key(), bytes("later"), Headers.EMPTY);
            java.util.concurrent.CompletableFuture<List<Long>> takeover = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return statements.claimLeased(other, "b@test", buckets, limits, "t-", true).stream()
                                    .map(r -> r.event().id()).toList();
                        } catch (SQLException e) {
                            throw new java.io.UncheckedIOException(new java.io.IOException(e));
                        }
                    });
            c.commit();
            assertThat(takeover.get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .as("the new owner gets only the row appended after, none of the settled batch").containsExactly(later);
            other.commit();
            setOwner(other, bucket, "a@test");
            other.commit();
            assertThat(TestDatabases.counts(db.outbox())).as("the claim's commit settled the rows: deleted")
                    .isEqualTo(new OutboxCounts(0, 0, 0));

            db.outbox().publish("orders.created", "k", bytes("x"), Headers.EMPTY);
            assertThat(statements.claimLeased(c, "b@test", buckets, limits, "t-", true))
                    .as("a loop claiming buckets it does not hold gets and deletes none of their rows").isEmpty();
            c.commit();
            assertThat(pending()).isEqualTo(1);
        }
    }

    private void setOwner(Connection c, int bucket, String owner) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + db.schema() + ".ringbus_outbox_bucket SET owner = '" + owner
                    + "', expires_at = clock_timestamp() + interval '1 minute' WHERE bucket = " + bucket);
        }
    }

    private static String setting(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Object transactionId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_xact_id_if_assigned()")) {
            rs.next();
            return rs.getObject(1);
        }
    }

    private Map<String, Integer> owners() {
        Map<String, Integer> owners = new HashMap<>();
        try (Connection c = db.outbox().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT owner, count(*) FROM " + db.schema() + ".ringbus_outbox_bucket"
                     + " WHERE owner IS NOT NULL AND expires_at > clock_timestamp() GROUP BY owner")) {
            while (rs.next()) {
                String owner = rs.getString(1);
                // member = relay name, "-" loop index (a relay has 2 loops by default), "@" process
                owners.merge(owner.replaceFirst("(-\\d+)?@.*", ""), rs.getInt(2), Integer::sum);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        return owners;
    }

    private long pending() {
        return TestDatabases.counts(db.outbox()).pending();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
