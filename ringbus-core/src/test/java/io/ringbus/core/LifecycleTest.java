package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** close(): refuses new work, drains what was accepted, stops every thread, and gives up on time. */
@Timeout(60)
class LifecycleTest {

    private static List<String> liveThreadsNamed(String prefix) {
        List<String> names = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && thread.getName().startsWith(prefix)) {
                names.add(thread.getName());
            }
        }
        return names;
    }

    @Test
    void closedBrokerRefusesPublishSubscribeAndRequest() {
        Broker broker = Broker.builder().name("lifecycle").ringSize(64).build();
        RecordingHandler handler = new RecordingHandler();
        Subscription subscription = broker.subscribe("a", handler);
        assertThat(broker.isClosed()).isFalse();
        broker.close();
        assertThat(broker.isClosed()).isTrue();
        assertThat(subscription.isActive()).isFalse();
        Client client = broker.client(Scope.PUBLIC);
        assertThatThrownBy(() -> broker.publish("a", "x")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> broker.tryPublish("a", "x")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> broker.subscribe("a", message -> { })).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> broker.request("a", "x", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class);
        broker.registerSubject("pub.>", Scope.PUBLIC);
        assertThatThrownBy(() -> client.publish("pub.x", "x")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.subscribe("pub.x", message -> { })).isInstanceOf(IllegalStateException.class);
        assertThat(broker.stats().published()).isZero();
        assertThat(handler.count()).isZero();
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void closeDeliversEverythingAcceptedBeforeItReturns(ExecutionMode mode) {
        int messages = 10_000;
        AtomicInteger handled = new AtomicInteger();
        Broker broker = Broker.builder().name("lifecycle-drain").shutdownTimeout(Duration.ofSeconds(50)).build();
        Subscription subscription = broker.subscribe("work", message -> {
            if (handled.incrementAndGet() % 100 == 0) {
                LockSupport.parkNanos(200_000);
            }
        }, SubscribeOptions.defaults().mode(mode));
        for (int i = 0; i < messages; i++) {
            broker.publish("work", i);
        }
        broker.close();
        assertThat(handled.get()).isEqualTo(messages);
        assertThat(subscription.delivered()).isEqualTo(messages);
        assertThat(broker.stats().droppedTotal()).isZero();
        assertThat(broker.stats().delivered()).isEqualTo(messages);
    }

    @Test
    void closeStopsEveryThreadTheBrokerStarted() throws Exception {
        String prefix = "lifecycle-threads-" + Long.toHexString(System.nanoTime());
        Broker broker = Broker.builder().name(prefix).ringSize(256).eventLoops(2).workerPoolSize(3)
                .watchdogInterval(Duration.ofMillis(20)).build();
        AtomicInteger handled = new AtomicInteger();
        for (ExecutionMode mode : ExecutionMode.values()) {
            broker.subscribe("a", message -> handled.incrementAndGet(), SubscribeOptions.defaults().mode(mode));
            broker.subscribe("b", message -> handled.incrementAndGet(),
                    SubscribeOptions.defaults().mode(mode).ordered(mode == ExecutionMode.EVENT_LOOP));
        }
        broker.subscribe("svc", message -> broker.publish(message.replyTo(), "pong"));
        for (int i = 0; i < 1_000; i++) {
            broker.publish(i % 2 == 0 ? "a" : "b", i);
        }
        assertThat(broker.request("svc", "ping", Duration.ofSeconds(10)).get(20, TimeUnit.SECONDS).payload())
                .isEqualTo("pong");
        int expected = ExecutionMode.values().length * 1_000;
        Await.until("every message handled", () -> handled.get() == expected, handled::get);
        assertThat(liveThreadsNamed(prefix)).as("the broker's threads are named after it").isNotEmpty();
        broker.close();
        assertThat(liveThreadsNamed(prefix)).as("threads left after close()").isEmpty();
    }

    @Test
    void closeIsIdempotentAndMayRaceWithItself() throws Exception {
        Broker broker = Broker.builder().name("lifecycle").ringSize(64).build();
        broker.subscribe("a", message -> { });
        broker.publish("a", 1);
        List<Thread> closers = new ArrayList<>();
        AtomicInteger returned = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            closers.add(Thread.ofPlatform().start(() -> {
                broker.close();
                returned.incrementAndGet();
            }));
        }
        for (Thread closer : closers) {
            closer.join();
        }
        assertThat(returned.get()).isEqualTo(3);
        broker.close();
        broker.close(Duration.ofMillis(10));
        assertThat(broker.isClosed()).isTrue();
    }

    @ParameterizedTest
    // PUBLISHER handlers run inside publish(): nothing is left to drain when close() starts.
    @EnumSource(value = ExecutionMode.class, names = "PUBLISHER", mode = EnumSource.Mode.EXCLUDE)
    void closeGivesUpAfterTheDrainTimeoutAndCountsTheUndeliveredAsShutdown(ExecutionMode mode) {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RecordingHandler handler = new RecordingHandler();
        Broker broker = Broker.builder().name("lifecycle-stuck").ringSize(64).build();
        try {
            broker.subscribe("a", message -> {
                handler.onMessage(message);
                entered.countDown();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(mode));
            broker.publish("a", 0);
            Await.latch(entered, "the handler is stuck on the first message");
            for (int i = 1; i <= 5; i++) {
                broker.publish("a", i);
            }
            broker.close(Duration.ofMillis(200));
            assertThat(broker.isClosed()).isTrue();
            assertThat(broker.stats().dropped().get(DropReason.SHUTDOWN))
                    .as("messages 1..5 were accepted and never handled; 0 was handed to the handler")
                    .isEqualTo(5);
        } finally {
            release.countDown();
        }
        Await.grace();
        assertThat(handler.payloads()).as("nothing is handled after close gave up on it").containsExactly(0);
    }

    @Test
    void closeWithABlockedBufferGivesUpAndCountsEveryUndeliveredMessageOnce() {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch gateEntered = new CountDownLatch(1);
        CountDownLatch gateRelease = new CountDownLatch(1);
        RecordingHandler handler = new RecordingHandler();
        Broker broker = Broker.builder().name("lifecycle-stuck").ringSize(64).build();
        try {
            Subscription worker = broker.subscribe("a", message -> {
                handler.onMessage(message);
                entered.countDown();
                Await.quietly(release);
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(2));
            broker.subscribe("gate", message -> {
                gateEntered.countDown();
                Await.quietly(gateRelease);
            });
            broker.publish("a", 0);
            Await.latch(entered, "the worker handler is stuck on the first message");
            // Hold the event loop while 1..9 are published, so that it then takes them as one batch.
            broker.publish("gate", "hold");
            Await.latch(gateEntered, "the event loop is held");
            for (int i = 1; i <= 9; i++) {
                broker.publish("a", i);
            }
            gateRelease.countDown();
            // 1 and 2 fill the buffer; the event loop waits (BLOCK) to hand over 3; 4..9 wait in the ring.
            Await.until("the buffer is full", () -> worker.pending() == 2, worker::pending);
            Await.grace();
            broker.close(Duration.ofMillis(200));
            assertThat(broker.stats().dropped().get(DropReason.SHUTDOWN))
                    .as("1..9 were accepted and never handled, each counted once").isEqualTo(9);
        } finally {
            gateRelease.countDown();
            release.countDown();
        }
        Await.grace();
        assertThat(handler.payloads()).containsExactly(0);
    }

    @Test
    void everyPublishThatReturnedIsDeliveredWhenCloseRacesWithPublishers() throws Exception {
        Broker broker = Broker.builder().name("lifecycle-race").ringSize(256)
                .shutdownTimeout(Duration.ofSeconds(30)).build();
        AtomicLong handled = new AtomicLong();
        broker.subscribe("a", message -> handled.incrementAndGet(),
                SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
        AtomicLong accepted = new AtomicLong();
        AtomicBoolean unexpected = new AtomicBoolean();
        CountDownLatch running = new CountDownLatch(2);
        List<Thread> publishers = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            publishers.add(Thread.ofPlatform().start(() -> {
                running.countDown();
                try {
                    for (int i = 0; ; i++) {
                        broker.publish("a", i);
                        accepted.incrementAndGet();
                    }
                } catch (IllegalStateException closed) {
                    // expected once close() began
                } catch (Throwable t) {
                    unexpected.set(true);
                }
            }));
        }
        Await.latch(running, "publishers started");
        Await.until("some messages flowed", () -> handled.get() > 1_000);
        broker.close();
        for (Thread publisher : publishers) {
            publisher.join();
        }
        assertThat(unexpected.get()).isFalse();
        BrokerStats stats = broker.stats();
        assertThat(stats.dropped().get(DropReason.SHUTDOWN)).isZero();
        assertThat(handled.get()).as("handled vs accepted").isEqualTo(accepted.get());
        assertThat(stats.published()).isEqualTo(accepted.get());
    }
    @Test
    void closeReleasesPublishersWaitingForRoom() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Broker broker = Broker.builder().name("lifecycle-full").ringSize(2).build();
        try {
            broker.subscribe("a", message -> {
                entered.countDown();
                Await.quietly(release);
            });
            broker.publish("a", 0);
            Await.latch(entered, "the event loop is held");
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread publisher = Thread.ofPlatform().name("lifecycle-full-publisher").start(() -> {
                try {
                    for (int i = 1; i < 100; i++) {
                        broker.publish("a", i);
                    }
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            Await.until("the publisher waits for room", () -> broker.stats().publishWaits() > 0);
            broker.close(Duration.ofMillis(100));
            publisher.join(Await.TIMEOUT.toMillis());
            assertThat(publisher.isAlive()).as("a publisher still waiting after close()").isFalse();
            assertThat(outcome.get()).isInstanceOf(IllegalStateException.class);
        } finally {
            release.countDown();
            broker.close();
        }
    }

    @Test
    void closeCompletesPendingRequests() {
        Broker broker = Broker.builder().name("lifecycle-requests").ringSize(64).build();
        broker.subscribe("svc.silent", message -> { });
        CompletableFuture<Message> pending = broker.request("svc.silent", "x", Duration.ofSeconds(30));
        broker.close();
        // No reply can come any more: the request must not wait out its 30 s timeout.
        Await.until("the pending request completes", pending::isDone);
        assertThat(pending).isCompletedExceptionally();
    }
}
