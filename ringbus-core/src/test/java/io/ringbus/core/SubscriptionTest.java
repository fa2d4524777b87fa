package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A subscription's lifecycle and counters. */
@Timeout(30)
class SubscriptionTest {

    private static Broker newBroker() {
        return Broker.builder().name("subscription").ringSize(256).build();
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void unsubscribeStopsDelivery(ExecutionMode mode) {
        try (Broker broker = newBroker()) {
            RecordingHandler handler = new RecordingHandler();
            RecordingHandler witness = new RecordingHandler();
            Subscription subscription = broker.subscribe("a", handler, SubscribeOptions.defaults().mode(mode));
            broker.subscribe("a", witness, SubscribeOptions.defaults().mode(mode));
            for (int i = 0; i < 10; i++) {
                broker.publish("a", i);
            }
            handler.awaitCount(10);
            subscription.unsubscribe();
            assertThat(subscription.isActive()).isFalse();
            for (int i = 10; i < 20; i++) {
                broker.publish("a", i);
            }
            witness.awaitCount(20);
            Await.grace();
            assertThat(handler.payloads()).isEqualTo(ExecutionModeTest.range(10));
            assertThat(subscription.delivered()).isEqualTo(10);
            assertThat(broker.stats().subscriptions()).extracting(BrokerStats.SubscriptionStats::id)
                    .doesNotContain(subscription.id());
        }
    }

    @Test
    void unsubscribeIsIdempotentAndCloseUnsubscribes() {
        try (Broker broker = newBroker()) {
            RecordingHandler handler = new RecordingHandler();
            Subscription first = broker.subscribe("a", handler);
            first.unsubscribe();
            first.unsubscribe();
            first.close();
            assertThat(first.isActive()).isFalse();
            Subscription second = broker.subscribe("a", handler);
            second.close();
            assertThat(second.isActive()).isFalse();
            RecordingHandler witness = new RecordingHandler();
            broker.subscribe("a", witness);
            broker.publish("a", "x");
            witness.awaitCount(1);
            Await.grace();
            assertThat(handler.count()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void unsubscribeAfterDeliversExactlyThatManyThenStops(ExecutionMode mode) {
        try (Broker broker = newBroker()) {
            RecordingHandler handler = new RecordingHandler();
            RecordingHandler witness = new RecordingHandler();
            Subscription subscription = broker.subscribe("a", handler, SubscribeOptions.defaults().mode(mode));
            subscription.unsubscribeAfter(5);
            broker.subscribe("a", witness);
            for (int i = 0; i < 20; i++) {
                broker.publish("a", i);
            }
            witness.awaitCount(20);
            Await.until("the subscription ends itself", () -> !subscription.isActive());
            Await.grace();
            assertThat(handler.payloads()).containsExactly(0, 1, 2, 3, 4);
            assertThat(subscription.delivered()).isEqualTo(5);
            assertThat(subscription.dropped()).isZero();
            assertThat(broker.stats().droppedTotal()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"WORKER", "VIRTUAL"})
    void unsubscribeAfterDeliversExactlyThatManyEvenWhenUnordered(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("subscription").ringSize(256).workerPoolSize(8).build()) {
            AtomicInteger calls = new AtomicInteger();
            CountDownLatch release = new CountDownLatch(1);
            Subscription subscription = broker.subscribe("a", message -> {
                calls.incrementAndGet();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(mode).ordered(false).maxConcurrency(8));
            subscription.unsubscribeAfter(3);
            for (int i = 0; i < 50; i++) {
                broker.publish("a", i);
            }
            try {
                Await.until("three handlers run", () -> calls.get() >= 3, calls::get);
                Await.grace();
            } finally {
                release.countDown();
            }
            Await.until("the subscription ends itself", () -> !subscription.isActive());
            Await.grace();
            assertThat(calls.get()).as("handler calls with unsubscribeAfter(3)").isEqualTo(3);
            assertThat(subscription.delivered()).isEqualTo(3);
        }
    }

    @Test
    void unsubscribeAfterWhenAlreadyDeliveredEndsAtOnce() {
        try (Broker broker = newBroker()) {
            RecordingHandler handler = new RecordingHandler();
            Subscription subscription = broker.subscribe("a", handler);
            for (int i = 0; i < 5; i++) {
                broker.publish("a", i);
            }
            Await.until("five delivered", () -> subscription.delivered() == 5);
            subscription.unsubscribeAfter(3);
            assertThat(subscription.isActive()).isFalse();
            RecordingHandler witness = new RecordingHandler();
            broker.subscribe("a", witness);
            broker.publish("a", 5);
            witness.awaitCount(1);
            Await.grace();
            assertThat(handler.count()).isEqualTo(5);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void unsubscribeAfterRejectsNonPositiveCounts(long count) {
        try (Broker broker = newBroker()) {
            Subscription subscription = broker.subscribe("a", message -> { });
            assertThatThrownBy(() -> subscription.unsubscribeAfter(count))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(count));
            assertThat(subscription.isActive()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"WORKER", "VIRTUAL"})
    void unsubscribeDiscardsBufferedMessagesWithoutCountingDrops(ExecutionMode mode) {
        try (Broker broker = newBroker()) {
            AtomicInteger calls = new AtomicInteger();
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Subscription subscription = broker.subscribe("a", message -> {
                calls.incrementAndGet();
                entered.countDown();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(mode));
            try {
                broker.publish("a", 0);
                Await.latch(entered, "the handler took the first message");
                for (int i = 1; i <= 5; i++) {
                    broker.publish("a", i);
                }
                Await.until("five messages buffered", () -> subscription.pending() == 5, subscription::pending);
                assertThat(subscription.delivered()).isLessThanOrEqualTo(1);
                subscription.unsubscribe();
            } finally {
                release.countDown();
            }
            Await.grace();
            assertThat(calls.get()).isEqualTo(1);
            assertThat(subscription.pending()).isZero();
            assertThat(subscription.dropped()).isZero();
            assertThat(broker.stats().droppedTotal()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void handlerMayUnsubscribeItsOwnSubscription(ExecutionMode mode) {
        try (Broker broker = newBroker()) {
            AtomicReference<Subscription> self = new AtomicReference<>();
            AtomicInteger calls = new AtomicInteger();
            self.set(broker.subscribe("a", message -> {
                calls.incrementAndGet();
                self.get().unsubscribe();
            }, SubscribeOptions.defaults().mode(mode)));
            RecordingHandler witness = new RecordingHandler();
            broker.subscribe("a", witness);
            for (int i = 0; i < 10; i++) {
                broker.publish("a", i);
            }
            witness.awaitCount(10);
            Await.grace();
            assertThat(calls.get()).isEqualTo(1);
            assertThat(self.get().isActive()).isFalse();
        }
    }

    @Test
    void eventLoopHandlerMaySubscribeAndNewSubscriptionGetsLaterMessages() {
        try (Broker broker = newBroker()) {
            RecordingHandler late = new RecordingHandler();
            AtomicReference<Subscription> added = new AtomicReference<>();
            broker.subscribe("start", message -> added.set(broker.subscribe("a", late)));
            broker.publish("start", "go");
            Await.until("the handler subscribed", () -> added.get() != null);
            broker.publish("a", 1);
            late.awaitCount(1);
            assertThat(late.payloads()).containsExactly(1);
        }
    }

    @Test
    void pendingCountsBufferedMessagesAndDeliveredCountsHandlerCalls() {
        try (Broker broker = newBroker()) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Subscription worker = broker.subscribe("a", message -> {
                entered.countDown();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            Subscription eventLoop = broker.subscribe("b", message -> { });
            try {
                broker.publish("a", 0);
                Await.latch(entered, "the worker handler started");
                for (int i = 1; i <= 4; i++) {
                    broker.publish("a", i);
                    broker.publish("b", i);
                }
                Await.until("four messages pending", () -> worker.pending() == 4, worker::pending);
                Await.until("the event-loop subscriber got all", () -> eventLoop.delivered() == 4);
                assertThat(eventLoop.pending()).isZero();
            } finally {
                release.countDown();
            }
            Await.until("the worker got all", () -> worker.delivered() == 5, worker::delivered);
            assertThat(worker.pending()).isZero();
        }
    }

    @Test
    void subscriptionDescribesItself() {
        try (Broker broker = newBroker()) {
            SubscribeOptions options = SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL).queueGroup("q");
            Subscription a = broker.subscribe("a.*", message -> { }, options);
            broker.registerSubject("pub.>", Scope.PUBLIC);
            Subscription b = broker.client(Scope.PUBLIC).subscribe("pub.x", message -> { });
            assertThat(a.pattern()).isEqualTo("a.*");
            assertThat(a.options()).isSameAs(options);
            assertThat(a.scope()).isEqualTo(Scope.ROOT);
            assertThat(a.isActive()).isTrue();
            assertThat(a.delivered()).isZero();
            assertThat(a.pending()).isZero();
            assertThat(a.dropped()).isZero();
            assertThat(b.pattern()).isEqualTo("pub.x");
            assertThat(b.scope()).isEqualTo(Scope.PUBLIC);
            assertThat(b.options()).isSameAs(SubscribeOptions.defaults());
            Set<Long> ids = new HashSet<>();
            for (int i = 0; i < 100; i++) {
                ids.add(broker.subscribe("x", message -> { }).id());
            }
            ids.add(a.id());
            ids.add(b.id());
            assertThat(ids).as("subscription ids are unique").hasSize(102);
            assertThat(List.copyOf(ids)).doesNotContainNull();
        }
    }
}
