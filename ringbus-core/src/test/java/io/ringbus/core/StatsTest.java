package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/** The counters of {@link Broker#stats()}. */
@Timeout(30)
class StatsTest {

    @Test
    void freshBrokerReportsZerosAndEveryDropReason() {
        try (Broker broker = Broker.builder().name("stats").ringSize(128).build()) {
            BrokerStats stats = broker.stats();
            assertThat(stats.published()).isZero();
            assertThat(stats.rejected()).isZero();
            assertThat(stats.publishWaits()).isZero();
            assertThat(stats.delivered()).isZero();
            assertThat(stats.handlerErrors()).isZero();
            assertThat(stats.watchdogWarnings()).isZero();
            assertThat(stats.dropped()).containsOnlyKeys(DropReason.values()).allSatisfy((reason, count) ->
                    assertThat(count).isZero());
            assertThat(stats.droppedTotal()).isZero();
            assertThat(stats.ringSize()).isEqualTo(128);
            assertThat(stats.ringRemainingCapacity()).isEqualTo(128);
            assertThat(stats.subscriptions()).isEmpty();
        }
    }

    @Test
    void deliveredCountsOneHandlerCallPerSubscriber() {
        try (Broker broker = Broker.builder().name("stats").ringSize(128).build()) {
            Subscription a1 = broker.subscribe("a", message -> { });
            Subscription a2 = broker.subscribe("a", message -> { }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            Subscription a3 = broker.subscribe("*", message -> { }, SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL));
            Subscription b = broker.subscribe("b", message -> { });
            for (int i = 0; i < 10; i++) {
                broker.publish("a", i);
            }
            for (int i = 0; i < 5; i++) {
                broker.publish("b", i);
            }
            broker.publish("c.nobody", "x");
            broker.publish("c.nobody", "y");
            Await.until("everything delivered", () -> broker.stats().delivered() == 3 * 10 + 2 * 5,
                    () -> broker.stats());
            BrokerStats stats = broker.stats();
            assertThat(stats.published()).isEqualTo(17);
            assertThat(a1.delivered()).isEqualTo(10);
            assertThat(a2.delivered()).isEqualTo(10);
            assertThat(a3.delivered()).isEqualTo(15);
            assertThat(b.delivered()).isEqualTo(5);
            assertThat(stats.subscriptions()).hasSize(4).anySatisfy(s -> {
                assertThat(s.id()).isEqualTo(a3.id());
                assertThat(s.pattern()).isEqualTo("*");
                assertThat(s.scope()).isEqualTo(Scope.ROOT);
                assertThat(s.mode()).isEqualTo(ExecutionMode.VIRTUAL);
                assertThat(s.queueGroup()).isNull();
                assertThat(s.delivered()).isEqualTo(15);
                assertThat(s.pending()).isZero();
                assertThat(s.dropped()).isZero();
            });
            Await.until("the ring drained", () -> broker.stats().ringRemainingCapacity() == 128);
        }
    }

    @Test
    void deliveredKeepsCountingAfterASubscriptionEnds() {
        try (Broker broker = Broker.builder().name("stats").ringSize(128).build()) {
            Subscription subscription = broker.subscribe("a", message -> { });
            for (int i = 0; i < 7; i++) {
                broker.publish("a", i);
            }
            Await.until("seven delivered", () -> subscription.delivered() == 7);
            subscription.unsubscribe();
            assertThat(broker.stats().delivered()).isEqualTo(7);
            assertThat(broker.stats().subscriptions()).isEmpty();
        }
    }

    @Test
    void reportsRingOccupancyAndPendingWhileAHandlerIsBlocked() {
        try (Broker broker = Broker.builder().name("stats").ringSize(64).build()) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch workerEntered = new CountDownLatch(1);
            Subscription eventLoop = broker.subscribe("loop", message -> {
                entered.countDown();
                Await.quietly(release);
            });
            Subscription worker = broker.subscribe("work", message -> {
                workerEntered.countDown();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            try {
                broker.publish("work", 0);
                Await.latch(workerEntered, "the worker handler is blocked");
                for (int i = 1; i <= 3; i++) {
                    broker.publish("work", i);
                }
                Await.until("three pending", () -> worker.pending() == 3, worker::pending);
                broker.publish("loop", 0);
                Await.latch(entered, "the event loop is blocked");
                for (int i = 1; i < 10; i++) {
                    broker.publish("loop", i);
                }
                BrokerStats stats = broker.stats();
                assertThat(stats.ringRemainingCapacity()).as("10 messages wait in or occupy a ring of 64")
                        .isBetween(64L - 10, 64L - 9);
                assertThat(stats.subscriptions()).anySatisfy(s -> {
                    assertThat(s.id()).isEqualTo(worker.id());
                    assertThat(s.pending()).isEqualTo(3);
                    assertThat(s.mode()).isEqualTo(ExecutionMode.WORKER);
                }).anySatisfy(s -> {
                    assertThat(s.id()).isEqualTo(eventLoop.id());
                    assertThat(s.pending()).isZero();
                });
                assertThat(stats.published()).isEqualTo(14);
            } finally {
                release.countDown();
            }
            Await.until("everything delivered", () -> broker.stats().delivered() == 14, () -> broker.stats());
            Await.until("the ring drained", () -> broker.stats().ringRemainingCapacity() == 64);
        }
    }
}
