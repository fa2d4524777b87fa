package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.StartPosition;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link JetStreamStorage}'s durable pull consumers, checked against the server's consumer state. */
class JetStreamConsumerTest {
    private final String root = TestJetStream.unique("c");
    private StreamConfig config;
    private Connection admin;
    private JetStreamManagement management;
    private JetStreamStorage storage;
    private StoredStream stream;

    @BeforeEach
    void open() throws Exception {
        admin = Nats.connect(TestJetStream.URL);
        management = admin.jetStreamManagement();
        storage = connect();
        config = StreamConfig.of(root + ".orders.>");
        stream = storage.stream(config);
    }

    @AfterEach
    void close() throws Exception {
        storage.close();
        TestJetStream.deleteStream(admin, config.name());
        admin.close();
    }

    private static JetStreamStorage connect() {
        return JetStreamStorage.builder().servers(TestJetStream.URL).connect();
    }

    private void publish(String token, int count) throws Exception {
        for (int i = 1; i <= count; i++) {
            stream.append(root + ".orders." + token, null, ("m" + i).getBytes(StandardCharsets.UTF_8), null)
                    .get(10, TimeUnit.SECONDS);
        }
    }

    private static ConsumerConfig consumer(String name, StartPosition start, Duration ackWait, int maxAckPending) {
        return new ConsumerConfig(name, ">", start, ackWait, 5, maxAckPending);
    }

    private static List<String> payloads(List<StoredMessage> messages) {
        return messages.stream().map(StoredMessage::payloadAsString).toList();
    }

    @Test
    void resumesAfterTheLastAckOnANewConnection() throws Exception {
        publish("eu", 6);
        ConsumerConfig billing = ConsumerConfig.of("billing", root + ".orders.>");
        try (StreamConsumer consumer = stream.consumer(billing)) {
            List<StoredMessage> first = consumer.fetch(3, Duration.ofSeconds(5));
            assertThat(payloads(first)).containsExactly("m1", "m2", "m3");
            first.forEach(consumer::ack);
        }
        storage.close(); // flushes the acks, closes the connection
        storage = connect();
        stream = storage.stream(config);
        try (StreamConsumer consumer = stream.consumer(billing)) {
            Await.until("ack floor at 3", () -> consumer.stats().ackFloor() == 3);
            List<StoredMessage> rest = consumer.fetch(10, Duration.ofSeconds(5));
            assertThat(payloads(rest)).containsExactly("m4", "m5", "m6");
            assertThat(rest).allSatisfy(m -> assertThat(m.deliveries()).isEqualTo(1));
        }
    }

    @Test
    void aNakWithADelayIsDeliveredAgainAfterItWithDeliveriesTwo() throws Exception {
        publish("eu", 1);
        try (StreamConsumer consumer = stream.consumer(consumer("c", StartPosition.all(), Duration.ofSeconds(30), 10))) {
            StoredMessage first = consumer.fetch(1, Duration.ofSeconds(5)).get(0);
            assertThat(first.deliveries()).isEqualTo(1);
            long nakedAt = System.nanoTime();
            consumer.nak(first, Duration.ofSeconds(1));
            List<StoredMessage> again = consumer.fetch(1, Duration.ofSeconds(10));
            assertThat(System.nanoTime() - nakedAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(900));
            assertThat(again).hasSize(1);
            assertThat(again.get(0).sequence()).isEqualTo(first.sequence());
            assertThat(again.get(0).deliveries()).isEqualTo(2);
            consumer.ack(again.get(0));
            Await.until("stats counted the redelivery", () -> consumer.stats().ackFloor() == 1);
            ConsumerStats stats = consumer.stats();
            assertThat(stats.delivered()).isEqualTo(2);
            assertThat(stats.redelivered()).isEqualTo(1);
            assertThat(stats.ackPending()).isZero();
        }
    }

    @Test
    void maxAckPendingBoundsAFetch() throws Exception {
        publish("eu", 10);
        try (StreamConsumer consumer = stream.consumer(consumer("c", StartPosition.all(), Duration.ofSeconds(30), 3))) {
            List<StoredMessage> out = consumer.fetch(10, Duration.ofSeconds(2));
            assertThat(payloads(out)).containsExactly("m1", "m2", "m3");
            ConsumerStats stats = consumer.stats();
            assertThat(stats.ackPending()).isEqualTo(3);
            assertThat(stats.pending()).isEqualTo(7);
            consumer.ack(out.get(0));
            assertThat(payloads(consumer.fetch(10, Duration.ofSeconds(5)))).containsExactly("m4");
        }
    }

    @Test
    void startPositionsAreJetStreamDeliverPolicies() throws Exception {
        publish("a", 2); // m1 m2 at sequences 1 and 2
        Thread.sleep(20);
        Instant between = Instant.now();
        Thread.sleep(20);
        publish("b", 1); // m1 at sequence 3
        Duration wait = Duration.ofSeconds(30);
        try (StreamConsumer bySequence = stream.consumer(consumer("seq", StartPosition.sequence(2), wait, 10));
             StreamConsumer byTime = stream.consumer(consumer("time", StartPosition.time(between), wait, 10));
             StreamConsumer lastPerSubject = stream.consumer(consumer("last", StartPosition.lastPerSubject(), wait, 10));
             StreamConsumer newOnly = stream.consumer(consumer("new", StartPosition.newOnly(), wait, 10))) {
            assertThat(policy("seq")).isEqualTo(DeliverPolicy.ByStartSequence);
            assertThat(policy("time")).isEqualTo(DeliverPolicy.ByStartTime);
            assertThat(policy("last")).isEqualTo(DeliverPolicy.LastPerSubject);
            assertThat(policy("new")).isEqualTo(DeliverPolicy.New);
            assertThat(fetchSequences(bySequence)).containsExactly(2L, 3L);
            assertThat(fetchSequences(byTime)).containsExactly(3L);
            assertThat(fetchSequences(lastPerSubject)).containsExactly(2L, 3L);
            assertThat(newOnly.fetch(10, Duration.ofMillis(300))).isEmpty();
            publish("c", 1);
            assertThat(fetchSequences(newOnly)).containsExactly(4L);
        }
        ConsumerConfiguration server = management.getConsumerInfo(config.name(), "seq").getConsumerConfiguration();
        assertThat(server.getAckPolicy()).isEqualTo(AckPolicy.Explicit);
        assertThat(server.getDeliverSubject()).isNull(); // a pull consumer
        assertThat(server.getFilterSubject()).isEqualTo(config.subjects().getFirst()); // '>' is the stream's pattern
        assertThat(server.getAckWait()).isEqualTo(wait);
        assertThat(server.getMaxAckPending()).isEqualTo(10);
    }

    private DeliverPolicy policy(String consumer) throws Exception {
        return management.getConsumerInfo(config.name(), consumer).getConsumerConfiguration().getDeliverPolicy();
    }

    private static List<Long> fetchSequences(StreamConsumer consumer) throws InterruptedException {
        return consumer.fetch(10, Duration.ofSeconds(5)).stream().map(StoredMessage::sequence).toList();
    }

    @Test
    void anExistingConsumerKeepsItsFilterAndTakesNewLimits() throws Exception {
        stream.consumer(ConsumerConfig.of("eu", root + ".orders.eu")).close();
        assertThatThrownBy(() -> stream.consumer(ConsumerConfig.of("eu", root + ".orders.us")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'eu'")
                .hasMessageContaining(root + ".orders.eu").hasMessageContaining(root + ".orders.us");
        assertThatThrownBy(() -> stream.consumer(ConsumerConfig.of("elsewhere", root + ".payments.>")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(root + ".payments.>");

        // Closing the handle left the consumer on the server; reopened with a longer ack wait.
        ConsumerConfig longer = new ConsumerConfig("eu", root + ".orders.eu", StartPosition.all(),
                Duration.ofMinutes(2), 7, 50);
        stream.consumer(longer).close();
        ConsumerConfiguration server = management.getConsumerInfo(config.name(), "eu").getConsumerConfiguration();
        assertThat(server.getAckWait()).isEqualTo(Duration.ofMinutes(2));
        assertThat(server.getMaxDeliver()).isEqualTo(7);
        assertThat(server.getMaxAckPending()).isEqualTo(50);
    }

    @Test
    void aFetchWithNothingReadyReturnsEmptyAfterItsWaitAndAClosedHandleRefusesFetches() throws Exception {
        StreamConsumer consumer = stream.consumer(ConsumerConfig.of("idle", ">"));
        long start = System.nanoTime();
        assertThat(consumer.fetch(5, Duration.ZERO)).isEmpty();
        assertThat(consumer.fetch(5, Duration.ofMillis(200))).isEmpty();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        consumer.close();
        assertThatThrownBy(() -> consumer.fetch(1, Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        assertThat(management.getConsumerNames(config.name())).contains("idle");
    }

    @Test
    void aTermedMessageIsNotDeliveredAgain() throws Exception {
        publish("eu", 2);
        try (StreamConsumer consumer = stream.consumer(consumer("c", StartPosition.all(), Duration.ofMillis(300), 10))) {
            List<StoredMessage> both = consumer.fetch(2, Duration.ofSeconds(5));
            consumer.term(both.get(0));
            consumer.nak(both.get(1), Duration.ZERO);
            List<StoredMessage> again = consumer.fetch(2, Duration.ofSeconds(5));
            assertThat(payloads(again)).containsExactly("m2");
            consumer.ack(again.get(0));
            assertThat(consumer.fetch(2, Duration.ofSeconds(1))).isEmpty();
        }
    }
}
