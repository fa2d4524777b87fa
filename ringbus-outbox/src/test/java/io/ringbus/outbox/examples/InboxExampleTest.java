package io.ringbus.outbox.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.outbox.BrokerSink;
import io.ringbus.outbox.Inbox;
import io.ringbus.outbox.InboxMessage;
import io.ringbus.outbox.InboxOutcome;
import io.ringbus.outbox.InboxResult;
import io.ringbus.outbox.JetStreamSink;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.Relay;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The inbox examples of docs/outbox.md ("Exactly once: the inbox"), compiled and run: each
 * {@code --8<--} region is a {@code java} block of the page ({@code InboxDocSnippetsTest}).
 */
class InboxExampleTest {
    private static final String NATS_URL = System.getenv().getOrDefault("RINGBUS_TEST_NATS_URL", "nats://127.0.0.1:4222");

    private final String db = "jdbc:h2:mem:inbox" + ThreadLocalRandom.current().nextInt(1_000_000) + ";DB_CLOSE_DELAY=-1";
    private HikariDataSource dataSource;
    private final AtomicInteger invoices = new AtomicInteger();

    @BeforeEach
    void open() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db);
        dataSource = new HikariDataSource(config);
        try (Connection c = dataSource.getConnection(); Statement ddl = c.createStatement()) {
            ddl.execute("CREATE TABLE invoices (order_id VARCHAR(64) NOT NULL)");
        }
    }

    @AfterEach
    void close() {
        dataSource.close();
    }

    private void insertInvoice(Connection connection, String orderId) throws SQLException {
        invoices.incrementAndGet();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO invoices VALUES (?)")) {
            insert.setString(1, orderId);
            insert.executeUpdate();
        }
    }

    private List<String> invoiceRows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT order_id FROM invoices ORDER BY order_id")) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    @Test
    void aBrokerConsumerAppliesEachEventOnceAndReturnsAfterTheCommit() throws Exception {
        List<InboxOutcome> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Broker broker = Broker.builder().build()) {
            // --8<-- [start:broker]
            Inbox inbox = Inbox.builder()
                    .table("billing_inbox")            // one inbox table per consumer
                    .retention(Duration.ofDays(7))     // a redelivery within 7 days is a duplicate
                    .open(dataSource);                 // creates or upgrades its tables
            broker.subscribe("orders.>", msg -> {
                try (Connection c = dataSource.getConnection()) {
                    InboxResult result = inbox.process(c, InboxMessage.of(msg),
                            tx -> insertInvoice(tx, msg.headers().first(OutboxEvent.KEY_HEADER)));
                    outcomes.add(result.outcome());    // committed: returning acknowledges it
                } catch (SQLException e) {
                    throw new IllegalStateException("not applied, nothing committed", e);
                }
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            // --8<-- [end:broker]
            BrokerSink sink = new BrokerSink(broker.client(Scope.ROOT));
            OutboxEvent event = new OutboxEvent(1, "orders-1", "orders.created", "o-1", new byte[0],
                    io.ringbus.core.Headers.EMPTY, 0, java.time.Instant.now());
            sink.deliver(event);
            sink.deliver(event);            // as a relay does after a crash between delivery and commit
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (outcomes.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        assertThat(outcomes).containsExactly(InboxOutcome.APPLIED, InboxOutcome.DUPLICATE);
        assertThat(invoiceRows()).containsExactly("o-1");
    }

    @Test
    void aJetStreamConsumerAcknowledgesAfterTheCommitAndARedeliveryIsADuplicate() throws Exception {
        String stream = "inbox_example_" + Long.toHexString(System.nanoTime());
        String prefix = "ix" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        io.nats.client.Connection nats = Nats.connect(NATS_URL);
        try {
            JetStreamManagement management = nats.jetStreamManagement();
            management.addStream(StreamConfiguration.builder().name(stream).subjects(prefix + ".>")
                    .storageType(StorageType.Memory).build());
            try (Outbox outbox = Outbox.builder().jdbcUrl("jdbc:h2:mem:o" + stream + ";DB_CLOSE_DELAY=-1").open();
                 JetStreamSink sink = JetStreamSink.builder(NATS_URL).subjectPrefix(prefix).build();
                 Relay relay = outbox.relay().sink(sink).start()) {
                for (int i = 0; i < 5; i++) {
                    outbox.publish("orders.created", "o-" + i, new byte[0], io.ringbus.core.Headers.EMPTY);
                }
                nats.publish(prefix + ".orders.created", "no id".getBytes(StandardCharsets.UTF_8));
                Inbox inbox = Inbox.builder().table("billing_inbox").open(dataSource);
                JetStream js = nats.jetStream();
                JetStreamSubscription subscription = js.subscribe(prefix + ".orders.>",
                        PullSubscribeOptions.builder().durable("billing").build());

                // A consumer that commits and then dies before acknowledging: nak stands in for the
                // lost ack, and JetStream delivers all of them again.
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                java.util.Set<Long> seen = new java.util.HashSet<>();
                while (seen.size() < 6 && System.nanoTime() < deadline) {
                    for (Message msg : subscription.fetch(6, Duration.ofSeconds(1))) {
                        try (Connection c = dataSource.getConnection()) {
                            inbox.process(c, InboxMessage.of(msg),
                                    tx -> insertInvoice(tx, msg.getHeaders().getFirst(OutboxEvent.KEY_HEADER)));
                        }
                        msg.nak();
                        seen.add(msg.metaData().streamSequence());
                    }
                }
                List<InboxOutcome> outcomes = new ArrayList<>();
                while (outcomes.size() < 6 && System.nanoTime() < deadline) {
                    // --8<-- [start:jetstream]
                    for (Message msg : subscription.fetch(100, Duration.ofSeconds(1))) {
                        try (Connection c = dataSource.getConnection()) {
                            InboxResult result = inbox.process(c, InboxMessage.of(msg),
                                    tx -> insertInvoice(tx, msg.getHeaders().getFirst(OutboxEvent.KEY_HEADER)));
                            if (result.outcome() == InboxOutcome.REFUSED) {
                                msg.term();                          // no event id: never redeliver it
                            } else {
                                msg.ackSync(Duration.ofSeconds(5));  // after the commit; waits for the server
                            }
                            outcomes.add(result.outcome());
                        } catch (SQLException e) {
                            msg.nak();                               // rolled back: let it come again
                        }
                    }
                    // --8<-- [end:jetstream]
                }
                assertThat(outcomes).containsOnly(InboxOutcome.DUPLICATE, InboxOutcome.REFUSED)
                        .hasSize(6).containsOnlyOnce(InboxOutcome.REFUSED);
                assertThat(subscription.fetch(10, Duration.ofMillis(500))).as("all acknowledged").isEmpty();
                assertThat(relay.stats().delivered()).isEqualTo(5);
            } finally {
                management.deleteStream(stream);
            }
        } finally {
            nats.close();
        }
        assertThat(invoices).as("handler calls").hasValue(5);
        assertThat(invoiceRows()).containsExactly("o-0", "o-1", "o-2", "o-3", "o-4");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT reason FROM billing_inbox_dead")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).startsWith("no event id");
        }
    }
}
