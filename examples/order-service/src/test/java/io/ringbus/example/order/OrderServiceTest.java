package io.ringbus.example.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.outbox.OutboxEvent;
import io.ringbus.spring.EmbeddedRingbusServer;
import io.ringbus.spring.RingbusTemplate;
import io.ringbus.spring.test.AutoConfigureRingbus;
import io.ringbus.spring.test.MessageRecorder;
import io.ringbus.spring.test.RingbusTestMessages;
import io.ringbus.testkit.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The order service over real HTTP (a random port), on the machine's PostgreSQL (a schema of its
 * own, {@link PostgresSchema}), with a jnats client on the embedded ringbus-server (a free port).
 */
@ExtendWith(PostgresSchema.class)   // before @SpringBootTest: drops the schema after the context closed
@ExtendWith(OutputCaptureExtension.class)   // before @SpringBootTest too: captures the context's start-up log
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {"ringbus.server.port=0",
    // for the dead-letter test: the relay publishes as PUBLIC, so an event on internal.> (PRIVATE) is refused
    "ringbus.outbox.relay.scope=PUBLIC", "ringbus.outbox.guaranteed-subjects=orders.>,internal.>"})
@AutoConfigureRingbus               // RingbusTestMessages
@DirtiesContext
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
class OrderServiceTest {

    static final Duration WAIT = Duration.ofSeconds(15);
    /** How long a wrong delivery gets to show up before a test checks there was none. */
    static final Duration GRACE = Duration.ofMillis(300);

    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final JsonMapper JSON = JsonMapper.builder().build();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        PostgresSchema.register(registry);
    }

    @Value("${local.server.port}")
    int httpPort;

    @Autowired
    EmbeddedRingbusServer ringbusServer;

    @Autowired
    RingbusTestMessages messages;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    RingbusTemplate template;

    @Autowired
    TransactionTemplate transactions;

    @Test
    void aPlacedOrderCommitsWithItsEventWhichTheListenerAndANatsSubscriberReceive() throws Exception {
        int applesBefore = stock("apple");
        try (Connection nats = Nats.connect(natsOptions());
             MessageRecorder placed = messages.record(OrderPlaced.SUBJECT)) {
            Subscription subscription = nats.subscribe(OrderPlaced.SUBJECT);
            nats.flush(WAIT);

            HttpResponse<String> response = post("/orders", "{\"sku\":\"apple\",\"quantity\":2}");

            assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
            Order order = JSON.readValue(response.body(), Order.class);
            assertThat(order.status()).isEqualTo(Order.Status.PLACED);
            assertThat(response.headers().firstValue("Location")).contains("/orders/" + order.id());
            assertThat(stock("apple")).as("the stock taken in the same transaction").isEqualTo(applesBefore - 2);

            // the outbox row committed with the order: the relay delivers it, with the outbox's headers
            io.nats.client.Message received = subscription.nextMessage(WAIT);
            assertThat(received).as("the event on the NATS subscription").isNotNull();
            assertThat(JSON.readValue(received.getData(), OrderPlaced.class))
                    .isEqualTo(new OrderPlaced(order.id(), "apple", 2));
            assertThat(received.getHeaders().getFirst(OutboxEvent.KEY_HEADER)).isEqualTo(order.id());
            String eventId = received.getHeaders().getFirst(OutboxEvent.EVENT_ID_HEADER);
            assertThat(eventId).as("delivered by the outbox relay").isNotBlank();

            Message inProcess = placed.awaitMessage(WAIT);
            assertThat(inProcess.headers().first(OutboxEvent.EVENT_ID_HEADER)).as("the same event in-process")
                    .isEqualTo(eventId);

            Await.until("the listener confirmed " + order.id(),
                    () -> get("/orders/" + order.id()).body().contains("\"CONFIRMED\""),
                    () -> get("/orders/" + order.id()).body());
            Await.grace();
            assertThat(placed.messages()).as("delivered once").hasSize(1);
            assertThat(subscription.nextMessage(GRACE)).isNull();
        }
    }

    @Test
    void anOrderTheStockCannotCoverRollsBackItsRowAndItsEventAndPublishesNothing() throws Exception {
        int pearsBefore = stock("pear");
        int ordersBefore = count("SELECT COUNT(*) FROM orders");
        try (Connection nats = Nats.connect(natsOptions());
             MessageRecorder placed = messages.record(OrderPlaced.SUBJECT)) {
            Subscription subscription = nats.subscribe(OrderPlaced.SUBJECT);
            nats.flush(WAIT);

            // the order row and the event are written, then the stock update fails: all rolled back
            HttpResponse<String> refused = post("/orders", "{\"sku\":\"pear\",\"quantity\":" + (pearsBefore + 1) + "}");

            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
            assertThat(refused.body()).contains("not enough stock: sku=pear");
            assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(ordersBefore);
            assertThat(stock("pear")).isEqualTo(pearsBefore);
            assertThat(count("SELECT COUNT(*) FROM ringbus_outbox WHERE convert_from(payload, 'UTF8') LIKE '%\"pear\"%'"))
                    .as("no outbox row").isZero();

            // a later order's event is delivered, and is the only one
            Order later = JSON.readValue(post("/orders", "{\"sku\":\"apple\",\"quantity\":1}").body(), Order.class);
            io.nats.client.Message received = subscription.nextMessage(WAIT);
            assertThat(received).isNotNull();
            assertThat(JSON.readValue(received.getData(), OrderPlaced.class).orderId()).isEqualTo(later.id());
            assertThat(subscription.nextMessage(GRACE)).as("nothing of the refused order").isNull();
            assertThat(placed.messages()).hasSize(1);
        }
    }

    @Test
    void anInvalidRequestIsRefusedNamingTheValueAndStoresNothing() {
        int ordersBefore = count("SELECT COUNT(*) FROM orders");

        HttpResponse<String> noSku = post("/orders", "{\"sku\":\"\",\"quantity\":1}");
        HttpResponse<String> noQuantity = post("/orders", "{\"sku\":\"apple\",\"quantity\":0}");

        assertThat(noSku.statusCode()).isEqualTo(400);
        assertThat(noSku.body()).contains("sku must be 1 to 64 characters: sku=");
        assertThat(noQuantity.statusCode()).isEqualTo(400);
        assertThat(noQuantity.body()).contains("quantity must be at least 1: quantity=0");
        assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(ordersBefore);
        assertThat(get("/orders/no-such-order").statusCode()).isEqualTo(404);
    }

    @Test
    void aDeadLetterIsListedRetriedAndDeletedThroughTheActuatorEndpointOverHttp() {
        transactions.executeWithoutResult(status ->
                template.publish("internal.audit", Headers.of(OutboxEvent.KEY_HEADER, "k-1"), "poison"));

        Await.until("a dead letter", () -> outbox("GET", "").get("dead").asLong() == 1, () -> outbox("GET", ""));
        JsonNode row = outbox("GET", "").get("deadLetters").get(0);
        assertThat(row.get("subject").asString()).isEqualTo("internal.audit");
        assertThat(row.get("key").asString()).isEqualTo("k-1");
        assertThat(row.get("payloadBytes").asInt()).isEqualTo(6);
        assertThat(row.get("lastError").asString()).isNotBlank();
        long id = row.get("id").asLong();
        assertThat(outbox("GET", "/" + id).get("deadLetters").size()).as("the page after it").isZero();

        // retried: pending again, refused again by the relay's scope, so dead again, at a later time
        assertThat(outbox("POST", "/" + id).get("retried").asBoolean()).isTrue();
        String firstDeath = row.get("deadAt").asString();
        Await.until("dead again", () -> {
            JsonNode dead = outbox("GET", "").get("deadLetters");
            return dead.size() == 1 && !dead.get(0).get("deadAt").asString().equals(firstDeath);
        }, () -> outbox("GET", ""));

        assertThat(outbox("DELETE", "/" + id).get("deleted").asBoolean()).isTrue();
        assertThat(outbox("DELETE", "/" + id).get("deleted").asBoolean()).as("gone").isFalse();
        assertThat(outbox("POST", "/" + id).get("retried").asBoolean()).isFalse();
        JsonNode after = outbox("GET", "");
        assertThat(after.get("dead").asLong()).isZero();
        assertThat(after.get("deadLetters").size()).isZero();
    }

    @Test
    void theStartLogNamesTheNatsPortAndTheEndpointCountsWhatTheRelayDeliveredThoughItsRowsAreDeleted(
            CapturedOutput output) {
        assertThat(output.getAll()).contains("ringbus NATS server listening on 127.0.0.1:" + ringbusServer.port());
        long before = outbox("GET", "").get("relay").get("deliveredSinceStart").asLong();

        post("/orders", "{\"sku\":\"apple\",\"quantity\":1}");

        Await.until("the relay counted the order's event",
                () -> outbox("GET", "").get("relay").get("deliveredSinceStart").asLong() == before + 1,
                () -> outbox("GET", ""));
        JsonNode body = outbox("GET", "");
        assertThat(body.get("relay").get("running").asBoolean()).isTrue();
        assertThat(body.get("deliveredInTable").asLong()).as("delivered rows are deleted").isZero();
        assertThat(body.has("delivered")).as("the old, always-0 field").isFalse();
    }

    /** Calls {@code /actuator/ringbusoutbox} over HTTP; fails unless it answers 200. */
    private JsonNode outbox(String method, String path) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/actuator/ringbusoutbox" + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build());
        assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private Options natsOptions() {
        return new Options.Builder().server("nats://127.0.0.1:" + ringbusServer.port()).noReconnect().build();
    }

    HttpResponse<String> post(String path, String json) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(request + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(request + ": interrupted", e);
        }
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + httpPort + path);
    }

    private int stock(String sku) {
        return jdbc.queryForObject("SELECT available FROM stock WHERE sku = ?", Integer.class, sku);
    }

    private int count(String sql) {
        return jdbc.queryForObject(sql, Integer.class);
    }
}
