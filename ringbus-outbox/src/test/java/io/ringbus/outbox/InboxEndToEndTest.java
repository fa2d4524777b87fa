package io.ringbus.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An order service (outbox in its schema) relays to a ringbus broker through a sink that delivers
 * every event twice and loses the acknowledgment of some (so the relay delivers those again); a
 * billing service (inbox in its own schema) writes one billing row per event: exactly one per
 * committed order, per key in commit order.
 */
class InboxEndToEndTest {
    private static final int ORDERS = 300;
    private static final int KEYS = 6;

    private final String orders = TestDatabases.uniqueSchema();
    private final String billing = TestDatabases.uniqueSchema();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        TestDatabases.dropPgSchema(orders);
        TestDatabases.dropPgSchema(billing);
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    /** Publishes every event twice, and fails the first attempt of every 7th after publishing it. */
    private static final class TwiceSink implements OutboxSink {
        private final BrokerSink broker;
        final AtomicInteger lostAcks = new AtomicInteger();

        TwiceSink(BrokerSink broker) {
            this.broker = broker;
        }

        @Override
        public String name() {
            return "twice";
        }

        @Override
        public int maxConcurrency() {
            return 1;
        }

        @Override
        public CompletionStage<?> deliver(OutboxEvent event) {
            broker.deliver(event);
            broker.deliver(event);
            if (event.id() % 7 == 0 && event.attempts() == 0) {
                lostAcks.incrementAndGet();
                return CompletableFuture.failedFuture(new java.io.IOException("ack lost after publishing"));
            }
            return CompletableFuture.completedFuture(null);
        }
    }

    @Test
    void everyCommittedOrderProducesExactlyOneBillingRowInKeyOrder() throws Exception {
        Broker broker = closeLater(Broker.builder().build());
        Outbox outbox = closeLater(Outbox.builder().jdbcUrl(TestDatabases.PG_URL).schema(orders).open());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabases.PG_URL);
        config.setMaximumPoolSize(4);
        HikariDataSource billingDb = closeLater(new HikariDataSource(config));
        Inbox inbox = Inbox.builder().schema(billing).open(billingDb);
        try (Connection c = billingDb.getConnection(); Statement ddl = c.createStatement()) {
            ddl.execute("CREATE TABLE " + billing + ".bill (id BIGSERIAL PRIMARY KEY, event_id TEXT NOT NULL,"
                    + " order_key TEXT NOT NULL, seq INT NOT NULL)");
            ddl.execute("CREATE TABLE " + orders + ".orders (seq INT PRIMARY KEY, order_key TEXT NOT NULL)");
        }

        Map<InboxOutcome, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        closeLater(broker.subscribe("orders.>", msg -> {
            InboxMessage message = InboxMessage.of(msg);
            try (Connection c = billingDb.getConnection()) {
                InboxResult result = inbox.process(c, message, tx -> {
                    try (PreparedStatement insert = tx.prepareStatement("INSERT INTO " + billing
                            + ".bill (event_id, order_key, seq) VALUES (?, ?, ?)")) {
                        insert.setString(1, message.eventId());
                        insert.setString(2, message.key());
                        insert.setInt(3, Integer.parseInt(new String(msg.payload(byte[].class), StandardCharsets.UTF_8)));
                        insert.executeUpdate();
                    }
                });
                outcomes.computeIfAbsent(result.outcome(), o -> new AtomicInteger()).incrementAndGet();
            } catch (SQLException | RuntimeException e) {
                failures.add(e);
            }
        }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER)));
        TwiceSink sink = new TwiceSink(new BrokerSink(broker.client(Scope.ROOT)));
        closeLater(outbox.relay().route("orders.>", sink).pollInterval(Duration.ofMillis(20))
                .retryPolicy(new RetryPolicy(100, Duration.ofMillis(20), Duration.ofMillis(100), 0)).start());

        for (int seq = 0; seq < ORDERS; seq++) {
            String key = "o-" + (seq % KEYS);
            try (Connection c = outbox.dataSource().getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + orders + ".orders VALUES (?, ?)")) {
                    insert.setInt(1, seq);
                    insert.setString(2, key);
                    insert.executeUpdate();
                }
                outbox.append(c, "orders.created", key, String.valueOf(seq).getBytes(StandardCharsets.UTF_8));
                c.commit();
            }
        }

        Await.until("every delivery handled", Duration.ofSeconds(60), () -> TestDatabases.counts(outbox).pending() == 0
                && count(outcomes, InboxOutcome.APPLIED) + count(outcomes, InboxOutcome.DUPLICATE)
                == 2 * (ORDERS + sink.lostAcks.get()));
        assertThat(failures).isEmpty();
        assertThat(sink.lostAcks.get()).as("the relay redelivered some events").isGreaterThan(10);
        assertThat(count(outcomes, InboxOutcome.APPLIED)).isEqualTo(ORDERS);
        assertThat(count(outcomes, InboxOutcome.DUPLICATE)).isEqualTo(ORDERS + 2 * sink.lostAcks.get());

        Map<String, List<Integer>> byKey = new HashMap<>();
        List<String> eventIds = new ArrayList<>();
        try (Connection c = billingDb.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT event_id, order_key, seq FROM " + billing + ".bill ORDER BY id")) {
            while (rs.next()) {
                eventIds.add(rs.getString(1));
                byKey.computeIfAbsent(rs.getString(2), k -> new ArrayList<>()).add(rs.getInt(3));
            }
        }
        assertThat(eventIds).as("one billing row per order").hasSize(ORDERS).doesNotHaveDuplicates();
        assertThat(byKey).hasSize(KEYS);
        byKey.forEach((key, seqs) -> assertThat(seqs).as("key %s in commit order", key).isSorted()
                .hasSize(ORDERS / KEYS));
    }

    private static int count(Map<InboxOutcome, AtomicInteger> outcomes, InboxOutcome outcome) {
        AtomicInteger n = outcomes.get(outcome);
        return n == null ? 0 : n.get();
    }
}
