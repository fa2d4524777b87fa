package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.PublishOptions;
import io.nats.client.Subscription;
import io.nats.client.api.PublishAck;
import io.nats.client.support.JsonValue;
import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.server.monitor.MonitorSources;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Network publishers and durable subjects (issue 17): a PUB to a durable subject is stored before
 * the connection's next PING is answered, and a PUB with a reply subject gets JetStream's PubAck,
 * so that jnats' JetStream {@code publish} works unchanged against ringbus-server. The store is
 * the real local log; {@link GatedStorage} holds its acknowledgements back where a test must see
 * the server wait for them.
 */
@Timeout(60)
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
class DurablePublishTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    private final RecordingErrorListener listener = new RecordingErrorListener();
    @AutoClose
    private ServerUnderTest server;

    /** A test server whose broker stores {@code orders.>} (PUBLIC) in {@code storage}. */
    private StoredStream startWithDurableOrders(Storage storage) {
        server = ServerUnderTest.start(b -> b.storage(storage), c -> c);
        return server.broker.registerStream(StreamConfig.of("orders.>"), Scope.PUBLIC);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void jetStreamPublishIsAcknowledgedWithTheStreamAndConsecutiveSequences() throws Exception {
        StoredStream orders = startWithDurableOrders(Storage.local(dir));
        try (Connection nc = listener.connect(server)) {
            JetStream js = nc.jetStream();
            for (int i = 1; i <= 3; i++) {
                // No subscriber: the store answers, where a core request would get no-responders.
                PublishAck ack = js.publish("orders.eu." + i, bytes("order " + i));
                assertThat(ack.getStream()).isEqualTo("orders_all");
                assertThat(ack.getSeqno()).isEqualTo(i);
                assertThat(ack.isDuplicate()).isFalse();
            }
            CompletableFuture<PublishAck> async = js.publishAsync("orders.us.1", bytes("order 4"));
            assertThat(async.get(WAIT.toSeconds(), TimeUnit.SECONDS).getSeqno()).isEqualTo(4);
        }
        assertThat(orders.info().messages()).isEqualTo(4);
        assertThat(orders.info().lastSequence()).isEqualTo(4);
        assertThat(server.server.stats().protocolErrors()).isZero();
        assertThat(listener.errors).isEmpty();
        assertThat(listener.exceptions).isEmpty();
    }

    @Test
    void aRepeatedMessageIdIsAcknowledgedAsADuplicateOfTheFirst() throws Exception {
        StoredStream orders = startWithDurableOrders(Storage.local(dir));
        try (Connection nc = listener.connect(server)) {
            JetStream js = nc.jetStream();
            PublishOptions id42 = PublishOptions.builder().messageId("order-42").build();
            PublishAck first = js.publish("orders.eu.42", bytes("42"), id42);
            PublishAck again = js.publish("orders.eu.42", bytes("42"), id42);
            PublishAck other = js.publish("orders.eu.43", bytes("43"),
                    PublishOptions.builder().messageId("order-43").build());

            assertThat(first.isDuplicate()).isFalse();
            assertThat(first.getSeqno()).isEqualTo(1);
            assertThat(again.isDuplicate()).isTrue();
            assertThat(again.getSeqno()).isEqualTo(1);
            assertThat(again.getStream()).isEqualTo("orders_all");
            assertThat(other.isDuplicate()).isFalse();
            assertThat(other.getSeqno()).isEqualTo(2);
        }
        assertThat(orders.info().messages()).as("stored once").isEqualTo(2);
    }

    @Test
    void pingIsAnsweredOnlyOnceEveryEarlierDurablePublishIsStored() {
        GatedStorage gated = new GatedStorage(Storage.local(dir));
        StoredStream orders = startWithDurableOrders(gated);
        int count = 500;
        try (RawClient raw = RawClient.connect(server.port())) {
            raw.handshake();
            StringBuilder pubs = new StringBuilder();
            for (int i = 0; i < count; i++) {
                pubs.append("PUB orders.eu.").append(i).append(" 5\r\nhello\r\n");
            }
            // The PING's PONG waits for the store; the connection goes on meanwhile.
            raw.send(pubs + "PING\r\nSUB pub.echo 1\r\nPUB pub.echo 2\r\nhi\r\n");
            RawClient.Delivery echo = raw.readDelivery();
            assertThat(echo.subject()).as("the echo comes first: the PONG is held").isEqualTo("pub.echo");
            assertThat(gated.acknowledged.get()).isZero();

            gated.open();
            raw.expectLine("PONG");
            assertThat(gated.acknowledged.get()).as("acknowledged by the store when PONG arrived").isEqualTo(count);
            assertThat(orders.info().lastSequence()).isEqualTo(count);

            // Nothing outstanding any more: answered at once.
            raw.send("PING\r\n");
            raw.expectLine("PONG");
        }
    }

    @Test
    void pongsStayInOrderBehindAHeldOne() {
        GatedStorage gated = new GatedStorage(Storage.local(dir));
        startWithDurableOrders(gated);
        try (RawClient raw = RawClient.connect(server.port())) {
            raw.handshake();
            // Only the first PING follows a durable PUB; the second must still not overtake it.
            raw.send("PUB orders.eu.1 1\r\nx\r\nPING\r\nPING\r\nSUB pub.echo 1\r\nPUB pub.echo 2\r\nhi\r\n");
            assertThat(raw.readDelivery().subject()).as("neither PONG before the echo").isEqualTo("pub.echo");
            gated.open();
            raw.expectLine("PONG");
            raw.expectLine("PONG");
            raw.assertRoundTrip("pub.after");
        }
    }

    @Test
    void aFailedStoreIsAnsweredWithJetStreamsErrorAndLiveSubscribersStillGetTheMessage() throws Exception {
        GatedStorage failing = new GatedStorage(Storage.local(dir));
        failing.failWith(new StorageException("disk full (test)"));
        failing.open();
        startWithDurableOrders(failing);
        try (Connection publisher = listener.connect(server); Connection subscriber = listener.connect(server)) {
            Subscription live = subscriber.subscribe("orders.>");
            subscriber.flush(WAIT);

            assertThatThrownBy(() -> publisher.jetStream().publish("orders.eu.1", bytes("lost")))
                    .isInstanceOfSatisfying(JetStreamApiException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(503);
                        assertThat(e.getApiErrorCode()).isEqualTo(10077);
                        assertThat(e.getErrorDescription()).contains("disk full (test)");
                    });
            Message message = live.nextMessage(WAIT);
            assertThat(message.getSubject()).isEqualTo("orders.eu.1");
            assertThat(message.getReplyTo()).as("delivered with its reply subject").isNotNull();

            // The connection stays: a plain publish and a flush (whose PING waited for the failed store) work.
            publisher.publish("orders.eu.2", bytes("also lost"));
            publisher.flush(WAIT);
            assertThat(publisher.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
        assertThat(server.server.stats().protocolErrors()).isZero();
        assertThat(listener.errors).isEmpty();
    }

    @Test
    void aMessageTooLargeForTheStoreIsRefusedInItsPubAckAndTheConnectionStays() throws Exception {
        Storage storage = Storage.local(dir);
        server = ServerUnderTest.start(b -> b.storage(storage), c -> c.maxPayload(4 << 20));
        StoredStream orders = server.broker.registerStream(StreamConfig.of("orders.>"), Scope.PUBLIC);
        try (Connection nc = listener.connect(server)) {
            JetStream js = nc.jetStream();
            assertThatThrownBy(() -> js.publish("orders.big", new byte[2 << 20]))
                    .isInstanceOfSatisfying(JetStreamApiException.class,
                            e -> assertThat(e.getApiErrorCode()).isEqualTo(10077));
            assertThat(js.publish("orders.small", bytes("fits")).getSeqno()).isEqualTo(1);
        }
        assertThat(orders.info().messages()).isEqualTo(1);
        assertThat(listener.errors).as("no -ERR").isEmpty();
    }

    @Test
    void everyAcknowledgedMessageIsReadAfterARestartOnTheSameDirectory() throws Exception {
        startWithDurableOrders(Storage.local(dir));
        List<String> sent = new ArrayList<>();
        try (Connection nc = listener.connect(server)) {
            JetStream js = nc.jetStream();
            for (int i = 0; i < 5; i++) {
                js.publish("orders.eu." + i, bytes("acked " + i));
                sent.add("acked " + i);
            }
            for (int i = 0; i < 5; i++) {
                nc.publish("orders.us." + i, bytes("flushed " + i));
                sent.add("flushed " + i);
            }
            // Large enough that the server asks whether anyone receives it: the store does.
            String large = "large ".repeat(60);
            nc.publish("orders.us.large", bytes(large));
            sent.add(large);
            nc.flush(WAIT); // the PING is the durability barrier
        }
        server.close(); // idempotent: @AutoClose closes it again

        try (Broker again = Broker.builder().name("again").storage(Storage.local(dir)).build()) {
            StoredStream orders = again.registerStream(StreamConfig.of("orders.>"), Scope.PUBLIC);
            assertThat(orders.info().lastSequence()).isEqualTo(sent.size());
            List<String> read = new CopyOnWriteArrayList<>();
            again.subscribe("orders.>", m -> read.add(new String((byte[]) m.payload(), StandardCharsets.UTF_8)),
                    SubscribeOptions.defaults().mode(ExecutionMode.WORKER).durable("reader"));
            Await.until("the durable subscription read every message", () -> read.size() >= sent.size(),
                    () -> read);
            assertThat(read).containsExactlyElementsOf(sent);
        }
    }

    @Test
    void varzShowsTheStoreItsStreamsAndDurableConsumers() throws Exception {
        Storage storage = Storage.local(dir);
        StoredStream orders = storage.stream(StreamConfig.of("orders.>")); // the one the broker registers
        server = ServerUnderTest.start(b -> b.storage(storage), c -> c.monitorPort(0),
                MonitorSources.builder().storage(storage, List.of(orders)).build());
        server.broker.registerStream(StreamConfig.of("orders.>"), Scope.PUBLIC);
        List<Object> billed = new CopyOnWriteArrayList<>();
        server.broker.subscribe("orders.>", billed::add,
                SubscribeOptions.defaults().mode(ExecutionMode.WORKER).durable("billing"));
        try (Connection nc = listener.connect(server)) {
            for (int i = 0; i < 3; i++) {
                nc.jetStream().publish("orders.eu." + i, bytes("o" + i));
            }
        }
        Await.until("billing read the orders", () -> billed.size() == 3, () -> billed);

        JsonValue storageJson = MonitorClient.field(MonitorClient.field(
                new MonitorClient(server.monitorPort()).json("/varz"), "ringbus"), "storage");
        assertThat(MonitorClient.string(storageJson, "store")).isEqualTo(storage.describe()).startsWith("local ");
        assertThat(MonitorClient.number(storageJson, "durable_publishes")).isEqualTo(3);
        assertThat(MonitorClient.number(storageJson, "acks_pending")).isZero();
        assertThat(MonitorClient.number(storageJson, "store_failures")).isZero();
        JsonValue stream = MonitorClient.find(MonitorClient.array(storageJson, "streams"), "name", "orders_all");
        assertThat(MonitorClient.string(stream, "subjects")).isEqualTo("orders.>");
        assertThat(MonitorClient.number(stream, "messages")).isEqualTo(3);
        assertThat(MonitorClient.number(stream, "last_seq")).isEqualTo(3);
        JsonValue billing = MonitorClient.find(MonitorClient.array(storageJson, "consumers"), "name", "billing");
        assertThat(MonitorClient.string(billing, "stream")).isEqualTo("orders_all");
        assertThat(MonitorClient.number(billing, "delivered")).isEqualTo(3);
        // The dashboard's document carries the same object for its "Durable subjects" card.
        JsonValue dashStorage = MonitorClient.field(new MonitorClient(server.monitorPort()).json("/dashz"), "storage");
        assertThat(MonitorClient.string(dashStorage, "store")).isEqualTo(storage.describe());
        assertThat(MonitorClient.number(MonitorClient.find(MonitorClient.array(dashStorage, "streams"), "name",
                "orders_all"), "messages")).isEqualTo(3);
    }
}
