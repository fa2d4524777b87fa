package io.ringbus.outbox.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbus.core.Broker;
import io.ringbus.core.Headers;
import io.ringbus.core.Scope;
import io.ringbus.outbox.BrokerSink;
import io.ringbus.outbox.Outbox;
import io.ringbus.outbox.OutboxCounts;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.outbox.Relay;
import io.ringbus.outbox.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of docs/outbox.md, compiled and run: an order and its event commit together. */
class OutboxExampleTest {
    @TempDir
    Path dir;

    @Test
    void orderAndItsEventCommitTogetherAndTheEventReachesTheBroker() throws Exception {
        String jdbcUrl = "jdbc:h2:file:" + dir.resolve("outbox") + ";LOCK_TIMEOUT=10000";
        List<String> seen = new CopyOnWriteArrayList<>();
        // --- example start
        try (Broker broker = Broker.builder().build();
             Outbox outbox = Outbox.builder()
                     .jdbcUrl(jdbcUrl)                   // default: an H2 file under ./ringbus-outbox-data
                     .maxPayloadBytes(256 * 1024)        // append refuses larger payloads
                     .open()) {                          // creates or upgrades the schema
            broker.subscribe("orders.>", msg -> seen.add(
                    msg.headers().first(OutboxEvent.EVENT_ID_HEADER) + " " + msg.payload(byte[].class).length));

            try (Relay relay = outbox.relay()
                    .route("orders.>", new BrokerSink(broker.client(Scope.ROOT)))
                    .batchSize(500)                                  // rows per claim transaction
                    .retryPolicy(new RetryPolicy(10, Duration.ofSeconds(1), Duration.ofMinutes(5), 0.5))
                    .deliveryTimeout(Duration.ofSeconds(30))
                    .start()) {
                try (Connection c = outbox.dataSource().getConnection()) {
                    c.setAutoCommit(false);
                    try (Statement ddl = c.createStatement()) {
                        ddl.execute("CREATE TABLE IF NOT EXISTS orders (id VARCHAR(64) PRIMARY KEY)");
                    }
                    try (PreparedStatement insert = c.prepareStatement("INSERT INTO orders VALUES (?)")) {
                        insert.setString(1, "o-42");
                        insert.executeUpdate();                           // the business data ...
                    }
                    outbox.append(c, "orders.eu.created", "o-42",         // ... and its event, keyed by order
                            "{\"id\":\"o-42\"}".getBytes(StandardCharsets.UTF_8),
                            Headers.of("Content-Type", "application/json"));
                    c.commit();                                           // both, or neither
                }
                // --- example end
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while ((seen.isEmpty() || relay.stats().delivered() == 0) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
            }
            assertThat(seen).containsExactly("1 13");
            assertThat(outbox.counts()).as("delivered rows are deleted").isEqualTo(new OutboxCounts(0, 0, 0));
        }
        assertThat(Files.exists(dir.resolve("outbox.mv.db"))).isTrue();
    }
}
