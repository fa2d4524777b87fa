package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.ringbus.core.Broker;
import io.ringbus.core.DurableOptions;
import io.ringbus.core.Durability;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Message;
import io.ringbus.core.Scope;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** A broker's durable subjects stored in JetStream: what a broker does with the local store, end to end. */
class JetStreamDurableSubjectsTest {
    private final String root = TestJetStream.unique("d");
    private final String pattern = root + ".orders.>";
    private Connection admin;

    @BeforeEach
    void open() throws Exception {
        admin = Nats.connect(TestJetStream.URL);
    }

    @AfterEach
    void close() throws Exception {
        TestJetStream.deleteStream(admin, StreamConfig.of(pattern).name());
        admin.close();
    }

    private Broker broker() {
        Broker broker = Broker.builder()
                .storage(JetStreamStorage.builder().servers(TestJetStream.URL).connectionName("durable-test").connect())
                .build();
        broker.registerSubject(pattern, Scope.PUBLIC, Durability.DURABLE);
        return broker;
    }

    private static List<String> texts(List<Message> messages) {
        return messages.stream().map(m -> new String((byte[]) m.payload(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aDurableSubscriptionResumesInANewBrokerFromTheLastAcknowledgedMessage() {
        List<Message> first = new CopyOnWriteArrayList<>();
        try (Broker broker = broker()) {
            for (int i = 1; i <= 5; i++) {
                broker.publish(root + ".orders.eu", "o" + i);
            }
            Subscription subscription = broker.subscribe(pattern, first::add,
                    SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL).durable("billing"));
            Await.until("first.size() == 5", () -> first.size() == 5);
            subscription.unsubscribe();
            broker.publish(root + ".orders.eu", "o6");
            broker.publish(root + ".orders.us", "o7");
        }
        List<Message> second = new CopyOnWriteArrayList<>();
        try (Broker broker = broker()) {
            broker.subscribe(pattern, second::add, SubscribeOptions.defaults().durable("billing"));
            Await.until("second.size() == 2", () -> second.size() == 2);
            assertThat(texts(first)).containsExactly("o1", "o2", "o3", "o4", "o5");
            assertThat(texts(second)).containsExactly("o6", "o7");
        }
    }

    @Test
    void aFailingHandlerGetsTheMessageAgainThenItIsDeadLettered() {
        AtomicInteger tries = new AtomicInteger();
        List<Message> dead = new CopyOnWriteArrayList<>();
        try (Broker broker = broker()) {
            broker.subscribe("$RB.DLQ.>", m -> dead.add(m.copy()));
            broker.subscribe(pattern, m -> {
                tries.incrementAndGet();
                throw new IllegalStateException("boom");
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).durable(DurableOptions.named("picky")
                    .withMaxDeliver(3).withRedelivery(Duration.ofMillis(10), Duration.ofMillis(40))));
            broker.publish(root + ".orders.eu", "bad");
            Await.until("dead.size() == 1", () -> dead.size() == 1);
            assertThat(tries.get()).isEqualTo(3);
            assertThat(dead.get(0).subject()).isEqualTo("$RB.DLQ." + StreamConfig.of(pattern).name() + ".picky");
            assertThat(dead.get(0).headers().first("Ringbus-Error")).contains("boom");
        }
    }
}
