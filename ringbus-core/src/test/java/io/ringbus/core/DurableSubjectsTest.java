package io.ringbus.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurableSubjectsTest {
    @TempDir
    Path dir;

    private Broker broker() {
        Broker broker = Broker.builder().storage(Storage.local(dir)).build();
        broker.registerSubject("orders.>", Scope.PUBLIC, Durability.DURABLE);
        return broker;
    }

    private static List<String> texts(List<Message> messages) {
        return messages.stream().map(m -> new String((byte[]) m.payload(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aDurableSubscriptionResumesAfterARestartFromTheLastAcknowledgedMessage() {
        List<Message> first = new CopyOnWriteArrayList<>();
        try (Broker broker = broker()) {
            for (int i = 1; i <= 5; i++) {
                broker.publish("orders.eu", "o" + i);
            }
            Subscription subscription = broker.subscribe("orders.>", first::add,
                    SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL).durable("billing"));
            Await.until("first.size() == 5", () -> first.size() == 5);
            subscription.unsubscribe();
            broker.publish("orders.eu", "o6");
            broker.publish("orders.us", "o7");
        }
        List<Message> second = new CopyOnWriteArrayList<>();
        try (Broker broker = broker()) {
            broker.subscribe("orders.>", second::add, SubscribeOptions.defaults().durable("billing"));
            Await.until("second.size() == 2", () -> second.size() == 2);
            assertThat(texts(first)).containsExactly("o1", "o2", "o3", "o4", "o5");
            assertThat(texts(second)).containsExactly("o6", "o7");
            assertThat(broker.stats().consumers()).singleElement()
                    .satisfies(c -> assertThat(c.name()).isEqualTo("billing"));
        }
    }

    @Test
    void unsubscribingNeverInterruptsTheDeliveryThreadAndTheStreamStaysReadable() throws Exception {
        // An interrupt during the store's FileChannel read closed the segment for every reader
        // (DeadLetterPowerCutTest: the broker's close hung); unsubscribe closes the handle instead.
        CountDownLatch inHandler = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        try (Broker broker = broker()) {
            broker.publish("orders.eu", "o1");
            Subscription subscription = broker.subscribe("orders.>", m -> {
                inHandler.countDown();
                LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
                interrupted.set(Thread.currentThread().isInterrupted());
            }, SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL).durable("billing"));
            assertThat(inHandler.await(10, TimeUnit.SECONDS)).isTrue();
            subscription.unsubscribe();
            assertThat(interrupted).as("the handler's thread was interrupted").isFalse();
            broker.publish("orders.eu", "o2");
            List<Message> again = new CopyOnWriteArrayList<>();
            broker.subscribe("orders.>", again::add, SubscribeOptions.defaults().durable("audit"));
            Await.until("again.size() == 2", () -> again.size() == 2);
            assertThat(texts(again)).containsExactly("o1", "o2");
        }
    }

    @Test
    void liveSubscribersStillReceiveDurableSubjects() {
        List<Message> live = new CopyOnWriteArrayList<>();
        try (Broker broker = broker()) {
            broker.subscribe("orders.*", m -> live.add(m.copy()));
            broker.publish("orders.eu", "x");
            Await.until("live.size() == 1", () -> live.size() == 1);
            assertThat(live.get(0).payload()).isEqualTo("x");
        }
    }

    @Test
    void aFailingHandlerGetsTheMessageAgainThenItIsDeadLettered() {
        AtomicInteger tries = new AtomicInteger();
        List<Message> dead = new CopyOnWriteArrayList<>();
        try (Broker broker = broker()) {
            broker.subscribe("$RB.DLQ.>", m -> dead.add(m.copy()));
            broker.subscribe("orders.>", m -> {
                tries.incrementAndGet();
                throw new IllegalStateException("boom");
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).durable(DurableOptions.named("picky")
                    .withMaxDeliver(3).withRedelivery(Duration.ofMillis(10), Duration.ofMillis(40))));
            broker.publish("orders.eu", "bad");
            Await.until("dead.size() == 1", () -> dead.size() == 1);
            assertThat(tries.get()).isEqualTo(3);
            Message letter = dead.get(0);
            assertThat(letter.subject()).isEqualTo("$RB.DLQ.orders_all.picky");
            assertThat(letter.headers().first("Ringbus-Sequence")).isEqualTo("1");
            assertThat(letter.headers().first("Ringbus-Error")).contains("boom");
        }
    }

    @Test
    void durableConsumersHaveMetersThatGoWithThem() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Broker broker = Broker.builder().storage(Storage.local(dir)).meterRegistry(registry).build()) {
            broker.registerSubject("orders.>", Scope.PUBLIC, Durability.DURABLE);
            Subscription subscription = broker.subscribe("orders.>", m -> {
                throw new IllegalStateException("no");
            }, SubscribeOptions.defaults().durable(DurableOptions.named("meters").withMaxDeliver(2)
                    .withRedelivery(Duration.ofMillis(5), Duration.ofMillis(5))));
            broker.publish("orders.eu", "x");
            Await.until("dead-lettered counted", () -> registry.find("ringbus.durable.dead.lettered")
                    .tag("consumer", "meters").functionCounter() != null
                    && registry.find("ringbus.durable.dead.lettered").functionCounter().count() == 1);
            assertThat(registry.find("ringbus.durable.redelivered").tag("stream", "orders_all").functionCounter()
                    .count()).isEqualTo(1);
            assertThat(registry.find("ringbus.durable.unacked").gauge().value()).isZero();
            subscription.unsubscribe();
            assertThat(registry.find("ringbus.durable.pending").gauge()).isNull();
        }
    }

    @Test
    void refusesWhatCannotBeStored() {
        try (Broker broker = broker()) {
            assertThatThrownBy(() -> broker.registerSubject("orders.eu.*", Scope.PUBLIC, Durability.DURABLE))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlaps");
            assertThatThrownBy(() -> broker.subscribe("payments.>", m -> { },
                    SubscribeOptions.defaults().durable("x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payments.>");
            assertThatThrownBy(() -> broker.publish("orders.eu", 42))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.Integer");
        }
    }

    @Test
    void tryPublishWithAckCompletesOnceStored() throws Exception {
        try (Broker broker = broker()) {
            PublishAck ack = broker.tryPublishWithAck("orders.eu", null, Headers.of("Nats-Msg-Id", "a"), "x")
                    .get();
            PublishAck again = broker.tryPublishWithAck("orders.eu", null, Headers.of("Nats-Msg-Id", "a"), "x")
                    .get();
            assertThat(ack.sequence()).isEqualTo(1);
            assertThat(again.duplicate()).isTrue();
            assertThat(broker.tryPublishWithAck("other", null, null, "y").get()).isNull();
        }
    }

    /**
     * What is stored depends on the patterns registered now, whatever was published before: a subject
     * of another first token is not stored, and is once a pattern for it (or a wildcard first token)
     * is registered.
     */
    @Test
    void aSubjectIsStoredOnceAPatternForItIsRegistered() throws Exception {
        try (Broker broker = broker()) {
            assertThat(broker.tryPublishWithAck("orders.eu", null, null, "a").get().sequence()).isEqualTo(1);
            assertThat(broker.tryPublishWithAck("payments.eu", null, null, "b").get()).isNull();
            assertThat(broker.tryPublishWithAck("ordersx.eu", null, null, "b").get()).isNull();
            assertThat(broker.tryPublishWithAck("orders", null, null, "b").get()).as("orders.> needs a second token")
                    .isNull();
            broker.registerSubject("payments.>", Scope.PUBLIC, Durability.DURABLE);
            assertThat(broker.tryPublishWithAck("payments.eu", null, null, "c").get().sequence()).isEqualTo(1);
            assertThat(broker.tryPublishWithAck("ship", null, null, "d").get()).isNull();
            broker.registerSubject("*", Scope.PUBLIC, Durability.DURABLE);
            assertThat(broker.tryPublishWithAck("ship", null, null, "e").get().sequence()).isEqualTo(1);
            assertThat(broker.tryPublishWithAck("orders.eu", null, null, "f").get().sequence()).isEqualTo(2);
        }
    }
}
