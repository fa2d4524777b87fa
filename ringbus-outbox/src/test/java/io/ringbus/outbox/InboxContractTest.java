package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The inbox's contract, run against each database ({@link H2InboxTest}, {@link PostgresInboxTest}):
 * each test has its own schema holding the inbox and an {@code effects} table the handlers write.
 */
abstract class InboxContractTest {
    final String schema = TestDatabases.uniqueSchema();
    final AtomicInteger handlerCalls = new AtomicInteger();
    Connection connection;
    Inbox inbox;

    abstract String jdbcUrl();

    /** Called after the connection closed. */
    void dropDatabase() throws SQLException {
    }

    @BeforeEach
    void open() throws SQLException {
        connection = connect();
        inbox = Inbox.builder().schema(schema).open(connection);
        try (Statement ddl = connection.createStatement()) {
            ddl.execute("CREATE TABLE " + schema + ".effects (event_id VARCHAR(255) NOT NULL)");
        }
    }

    @AfterEach
    void close() throws SQLException {
        connection.close();
        dropDatabase();
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl());
    }

    /** A handler that writes one effect row for {@code eventId} and counts its calls. */
    InboxHandler effect(String eventId) {
        return c -> {
            handlerCalls.incrementAndGet();
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + schema + ".effects VALUES (?)")) {
                insert.setString(1, eventId);
                insert.executeUpdate();
            }
        };
    }

    List<String> rows(String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    List<String> effects() throws SQLException {
        return rows("SELECT event_id FROM " + schema + ".effects ORDER BY event_id");
    }

    List<String> ids() throws SQLException {
        return rows("SELECT event_id FROM " + schema + ".ringbus_inbox ORDER BY event_id");
    }

    @Test
    void appliesOnceAndADuplicateRunsNoHandlerAndCommitsNothing() throws SQLException {
        InboxResult first = inbox.process(connection, InboxMessage.of("e-1", "k"), effect("e-1"));
        InboxResult again = inbox.process(connection, InboxMessage.of("e-1", "k"), effect("e-1"));

        assertThat(first).isEqualTo(new InboxResult(InboxOutcome.APPLIED, "e-1", null));
        assertThat(again).isEqualTo(new InboxResult(InboxOutcome.DUPLICATE, "e-1", null));
        assertThat(handlerCalls).hasValue(1);
        assertThat(effects()).containsExactly("e-1");
        assertThat(ids()).containsExactly("e-1");
        assertThat(connection.getAutoCommit()).as("auto-commit restored").isTrue();
    }

    @Test
    void aHandlerFailureRollsBackItsEffectsAndTheIdSoARedeliveryApplies() throws SQLException {
        InboxHandler failing = c -> {
            effect("e-2").apply(c);
            throw new SQLException("billing failed");
        };
        assertThatThrownBy(() -> inbox.process(connection, InboxMessage.of("e-2", null), failing))
                .isInstanceOf(SQLException.class).hasMessage("billing failed");
        InboxHandler crashing = c -> {
            effect("e-2").apply(c);
            throw new IllegalStateException("bug");
        };
        assertThatThrownBy(() -> inbox.process(connection, InboxMessage.of("e-2", null), crashing))
                .isInstanceOf(IllegalStateException.class);
        assertThat(effects()).as("effects rolled back").isEmpty();
        assertThat(ids()).as("id rolled back").isEmpty();

        assertThat(inbox.process(connection, InboxMessage.of("e-2", null), effect("e-2")).outcome())
                .isEqualTo(InboxOutcome.APPLIED);
        assertThat(effects()).containsExactly("e-2");
    }

    @Test
    void aMessageWithoutAnEventIdIsRefusedRecordedAndNeverHandled() throws SQLException {
        byte[] payload = "{\"order\":7}".getBytes(StandardCharsets.UTF_8);
        InboxResult result = inbox.process(connection, new InboxMessage(null, "k-7", "orders.created", payload),
                effect("none"));

        assertThat(result.outcome()).isEqualTo(InboxOutcome.REFUSED);
        assertThat(result.reason()).isEqualTo("no event id: the message has no Ringbus-Event-Id (nor Nats-Msg-Id) header");
        assertThat(handlerCalls).hasValue(0);
        assertThat(effects()).isEmpty();
        assertThat(rows("SELECT subject || ' ' || msg_key || ' ' || reason FROM " + schema + ".ringbus_inbox_dead"))
                .containsExactly("orders.created k-7 " + result.reason());

        String longId = "x".repeat(InboxMessage.MAX_EVENT_ID_LENGTH + 1);
        assertThat(inbox.process(connection, InboxMessage.of(longId, null), effect(longId)).reason())
                .isEqualTo("event id longer than 255 characters: length=256");
        assertThat(inbox.process(connection, InboxMessage.of(" ", null), effect(" ")).reason())
                .isEqualTo("blank event id: eventId=' '");
        assertThat(handlerCalls).hasValue(0);
        assertThat(rows("SELECT reason FROM " + schema + ".ringbus_inbox_dead")).hasSize(3);
    }

    @Test
    void controlCharactersAreRefusedAndRecordedOnEveryDatabase() throws SQLException {
        // On PostgreSQL a NUL in any text column failed the insert: the refusal (or the key's id) was
        // never committed, process threw, and the message was to be redelivered for ever.
        InboxResult nulId = inbox.process(connection, new InboxMessage("e-\u0000", "k", "orders.x\u0000", null),
                effect("e-nul"));
        InboxResult nulKey = inbox.process(connection, InboxMessage.of("e-9", "k\u0000\n"), effect("e-9"));

        assertThat(nulId.outcome()).isEqualTo(InboxOutcome.REFUSED);
        assertThat(nulKey).isEqualTo(new InboxResult(InboxOutcome.REFUSED, "e-9",
                "key with a control character: key=k?? (eventId=e-9)"));
        assertThat(handlerCalls).hasValue(0);
        assertThat(ids()).isEmpty();
        assertThat(rows("SELECT event_id || ' ' || msg_key || ' ' || COALESCE(subject, '-') FROM " + schema
                + ".ringbus_inbox_dead ORDER BY id")).containsExactly("e-? k orders.x?", "e-9 k?? -");
    }

    @Test
    void withoutRecordingRefusalsARefusedMessageLeavesNoRow() throws SQLException {
        Inbox quiet = Inbox.builder().schema(schema).recordRefused(false).open(connection);
        assertThat(quiet.process(connection, InboxMessage.of(null, null), effect("none")).outcome())
                .isEqualTo(InboxOutcome.REFUSED);
        assertThat(handlerCalls).hasValue(0);
        assertThat(rows("SELECT reason FROM " + schema + ".ringbus_inbox_dead")).isEmpty();
    }

    @Test
    void purgeRemovesOnlyIdsPastTheRetentionAndAPurgedIdIsAppliedAgain() throws SQLException {
        for (String id : List.of("old-1", "old-2", "new-1")) {
            inbox.process(connection, InboxMessage.of(id, null), effect(id));
        }
        age("old-%", Duration.ofDays(8));

        assertThat(inbox.purge(connection)).isEqualTo(2);
        assertThat(ids()).containsExactly("new-1");
        assertThat(inbox.process(connection, InboxMessage.of("new-1", null), effect("new-1")).outcome())
                .as("within the retention: a duplicate").isEqualTo(InboxOutcome.DUPLICATE);
        assertThat(inbox.process(connection, InboxMessage.of("old-1", null), effect("old-1")).outcome())
                .as("past the retention: the bound, applied again").isEqualTo(InboxOutcome.APPLIED);
        assertThat(effects()).containsExactly("new-1", "old-1", "old-1", "old-2");
    }

    @Test
    void everyPurgeEveryCallsProcessPurges() throws SQLException {
        Inbox purging = Inbox.builder().schema(schema).retention(Duration.ofHours(1)).purgeEvery(3).open(connection);
        purging.process(connection, InboxMessage.of("a", null), effect("a"));
        purging.process(connection, InboxMessage.of("b", null), effect("b"));
        age("a", Duration.ofHours(2));
        assertThat(ids()).containsExactly("a", "b");
        purging.process(connection, InboxMessage.of("c", null), effect("c"));
        assertThat(ids()).as("third call purged the id older than an hour").containsExactly("b", "c");
    }

    @Test
    void inTheCallersTransactionTheIdCommitsOrRollsBackWithIt() throws SQLException {
        assertThatThrownBy(() -> inbox.processInTransaction(connection, InboxMessage.of("t-1", null), effect("t-1")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("auto-commit");
        connection.setAutoCommit(false);
        assertThat(inbox.processInTransaction(connection, InboxMessage.of("t-1", null), effect("t-1")).outcome())
                .isEqualTo(InboxOutcome.APPLIED);
        connection.rollback();
        assertThat(ids()).isEmpty();
        inbox.processInTransaction(connection, InboxMessage.of("t-1", null), effect("t-1"));
        assertThat(inbox.processInTransaction(connection, InboxMessage.of("t-1", null), effect("t-1")).outcome())
                .as("a duplicate within the same transaction").isEqualTo(InboxOutcome.DUPLICATE);
        connection.commit();
        assertThat(effects()).containsExactly("t-1");
        assertThat(handlerCalls).hasValue(2);
    }

    @Test
    void openWithoutMigratingRefusesAMissingInbox() throws SQLException {
        assertThatThrownBy(() -> Inbox.builder().schema(schema).table("other_inbox").migrate(false).open(connection))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inbox schema " + schema + ".other_inbox is at version 0");
        assertThat(Inbox.builder().schema(schema).migrate(false).open(connection).table())
                .isEqualTo(schema + ".ringbus_inbox");
    }

    @Test
    void aSecondDeliveryWaitsForTheFirstsTransactionAndAppliesWhenItRollsBack() throws Exception {
        CountDownLatch firstRecorded = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<?> first = thread.submit(() -> {
                try (Connection c = connect()) {
                    return inbox.process(c, InboxMessage.of("e-1", null), conn -> {
                        firstRecorded.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        throw new SQLException("first try fails after recording the id");
                    });
                }
            });
            assertThat(firstRecorded.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.ofVirtual().start(() -> {
                sleep(200);
                release.countDown();
            });
            // Blocks on the first's uncommitted id until it rolls back, then records its own.
            InboxResult second = inbox.process(connection, InboxMessage.of("e-1", null), effect("e-1"));
            assertThat(second.outcome()).isEqualTo(InboxOutcome.APPLIED);
            assertThat(release.getCount()).as("the second waited for the first").isZero();
            assertThat(first).failsWithin(10, TimeUnit.SECONDS);
        } finally {
            thread.shutdownNow();
        }
        assertThat(effects()).containsExactly("e-1");
    }

    @Test
    void concurrentDeliveriesOfOneEventApplyItExactlyOnce() throws Exception {
        int events = 200;
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<InboxOutcome>>> consumers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                consumers.add(threads.submit(() -> {
                    List<InboxOutcome> outcomes = new ArrayList<>();
                    try (Connection c = connect()) {
                        for (int i = 0; i < events; i++) {
                            String id = "e-" + i;
                            together.await(10, TimeUnit.SECONDS);
                            outcomes.add(inbox.process(c, InboxMessage.of(id, "k"), effect(id)).outcome());
                        }
                    }
                    return outcomes;
                }));
            }
            List<InboxOutcome> a = consumers.get(0).get(60, TimeUnit.SECONDS);
            List<InboxOutcome> b = consumers.get(1).get(60, TimeUnit.SECONDS);
            for (int i = 0; i < events; i++) {
                assertThat(List.of(a.get(i), b.get(i))).as("event e-%d", i)
                        .containsExactlyInAnyOrder(InboxOutcome.APPLIED, InboxOutcome.DUPLICATE);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(effects()).hasSize(events).doesNotHaveDuplicates();
        assertThat(handlerCalls).hasValue(events);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Moves the recorded time of the ids matching {@code like} into the past. */
    void age(String like, Duration by) throws SQLException {
        try (Connection c = connect(); PreparedStatement update = c.prepareStatement("UPDATE " + schema
                + ".ringbus_inbox SET processed_at = ? WHERE event_id LIKE ?")) {
            update.setObject(1, java.time.OffsetDateTime.now().minus(by));
            update.setString(2, like);
            assertThat(update.executeUpdate()).isPositive();
        }
    }
}
