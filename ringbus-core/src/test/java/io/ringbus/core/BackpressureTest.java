package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** A full ring makes publishers wait ({@code publish}) or refuses them ({@code tryPublish}); nothing is lost. */
@Timeout(60)
class BackpressureTest {

    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"WORKER", "VIRTUAL"})
    void blockPolicyLosesNothingAndMakesPublishersWait(ExecutionMode mode) throws Exception {
        int messages = 500;
        try (Broker broker = Broker.builder().name("backpressure").ringSize(8).build()) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<Object> received = new ArrayList<>();
            AtomicBoolean first = new AtomicBoolean(true);
            Subscription slow = broker.subscribe("a", message -> {
                if (first.getAndSet(false)) {
                    entered.countDown();
                    Await.quietly(release);
                }
                received.add(message.payload());
                LockSupport.parkNanos(20_000);
            }, SubscribeOptions.defaults().mode(mode).bufferSize(2).overflow(OverflowPolicy.BLOCK));
            RecordingHandler eventLoop = new RecordingHandler();
            broker.subscribe("a", eventLoop);

            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread publisher = Thread.ofPlatform().name("backpressure-publisher").start(() -> {
                try {
                    for (int i = 0; i < messages; i++) {
                        broker.publish("a", i);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            try {
                Await.latch(entered, "the slow handler took the first message");
                Await.until("the publisher waits for room", () -> broker.stats().publishWaits() > 0,
                        () -> broker.stats());
                // The loop waits to hand the slow subscriber more, so the ring ends up full.
                Await.until("the ring is full", () -> broker.stats().ringRemainingCapacity() == 0,
                        () -> broker.stats());
                assertThat(publisher.isAlive()).as("publish() waits while the ring is full").isTrue();
                assertThat(slow.pending()).isLessThanOrEqualTo(2);
            } finally {
                release.countDown();
            }
            publisher.join();
            assertThat(failure.get()).isNull();
            Await.until("every message delivered", () -> slow.delivered() == messages, slow::delivered);
            assertThat(received).isEqualTo(ExecutionModeTest.range(messages));
            eventLoop.awaitCount(messages);
            assertThat(eventLoop.payloads()).isEqualTo(ExecutionModeTest.range(messages));
            BrokerStats stats = broker.stats();
            assertThat(stats.droppedTotal()).isZero();
            assertThat(stats.rejected()).isZero();
            assertThat(stats.published()).isEqualTo(messages);
        }
    }

    @Test
    void tryPublishReturnsFalseWhenTheRingIsFullAndCountsIt() {
        try (Broker broker = Broker.builder().name("backpressure").ringSize(2).build()) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            RecordingHandler handler = new RecordingHandler();
            broker.subscribe("a", message -> {
                if (message.payload().equals(0)) {
                    entered.countDown();
                    Await.quietly(release);
                }
                handler.onMessage(message);
            });
            int accepted = 1;
            try {
                assertThat(broker.tryPublish("a", 0)).isTrue();
                Await.latch(entered, "the handler took the first message");
                while (broker.tryPublish("a", accepted)) {
                    accepted++;
                    assertThat(accepted).as("messages accepted by a ring of 2 with a blocked loop")
                            .isLessThanOrEqualTo(3);
                }
                assertThat(broker.tryPublish("a", "refused")).isFalse();
                assertThat(broker.tryPublish("a", "refused")).isFalse();
                BrokerStats stats = broker.stats();
                assertThat(stats.rejected()).isEqualTo(3);
                assertThat(stats.published()).isEqualTo(accepted);
                assertThat(stats.ringRemainingCapacity()).isZero();
                assertThat(stats.publishWaits()).isZero();
            } finally {
                release.countDown();
            }
            handler.awaitCount(accepted);
            assertThat(handler.payloads()).isEqualTo(ExecutionModeTest.range(accepted));
            Await.until("the ring is empty again", () -> broker.stats().ringRemainingCapacity() == 2);
            assertThat(broker.tryPublish("a", accepted)).isTrue();
            handler.awaitCount(accepted + 1);
        }
    }

    @Test
    void publishOnTheEventLoopFailsInsteadOfDeadlockingWhenTheRingIsFull() {
        try (Broker broker = Broker.builder().name("backpressure").ringSize(2).build()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            RecordingHandler echoes = new RecordingHandler();
            broker.subscribe("echo", echoes);
            broker.subscribe("a", message -> {
                try {
                    for (int i = 0; i < 5; i++) {
                        broker.publish("echo", i);
                    }
                } catch (Throwable t) {
                    thrown.set(t);
                } finally {
                    done.countDown();
                }
            });
            broker.publish("a", "go");
            Await.latch(done, "the handler finished publishing");
            assertThat(thrown.get()).isInstanceOf(IllegalStateException.class);
            assertThat(thrown.get().getMessage()).contains("ringSize");
            Await.until("the accepted echoes are delivered", () -> echoes.count() >= 1);
            Await.grace();
            assertThat(echoes.payloads()).isEqualTo(ExecutionModeTest.range(echoes.count()));
            broker.publish("echo", "after");
            echoes.awaitPayload("after");
        }
    }

    @Test
    void publishingFromAnEventLoopHandlerWorksWhileTheRingHasRoom() {
        try (Broker broker = Broker.builder().name("backpressure").ringSize(64).build()) {
            RecordingHandler second = new RecordingHandler();
            broker.subscribe("first", message -> broker.publish("second", "re:" + message.payload()));
            broker.subscribe("second", second);
            for (int i = 0; i < 20; i++) {
                broker.publish("first", i);
            }
            second.awaitCount(20);
            assertThat(second.payloads()).first().isEqualTo("re:0");
            assertThat(second.payloads()).last().isEqualTo("re:19");
        }
    }
    @Test
    void unsubscribingABlockingSlowConsumerReleasesTheEventLoop() {
        try (Broker broker = Broker.builder().name("backpressure").ringSize(64).build()) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Subscription slow = broker.subscribe("a", message -> {
                entered.countDown();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(2));
            RecordingHandler other = new RecordingHandler();
            broker.subscribe("a", other);
            try {
                broker.publish("a", 0);
                Await.latch(entered, "the slow handler took the first message");
                for (int i = 1; i < 10; i++) {
                    broker.publish("a", i);
                }
                // 1 and 2 fill the slow buffer; the loop waits to hand over 3, so the other
                // subscriber of the same loop is stuck at 3 as well.
                Await.until("the other subscriber got 0..2", () -> other.count() >= 3, other::payloads);
                Await.grace();
                assertThat(other.count()).isEqualTo(3);
                slow.unsubscribe();
                other.awaitCount(10);
                assertThat(other.payloads()).isEqualTo(ExecutionModeTest.range(10));
            } finally {
                release.countDown();
            }
        }
    }
}
