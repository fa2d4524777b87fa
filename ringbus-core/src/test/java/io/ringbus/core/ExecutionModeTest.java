package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where handlers run, how many at once, and in which order. */
@Timeout(60)
class ExecutionModeTest {

    @Test
    void eventLoopHandlersRunOnTheBrokersDispatchThread() {
        try (Broker broker = Broker.builder().name("mode-el").ringSize(256).build()) {
            RecordingHandler handler = new RecordingHandler();
            broker.subscribe("a", handler);
            for (int i = 0; i < 50; i++) {
                broker.publish("a", i);
            }
            handler.awaitCount(50);
            Set<Thread> threads = new HashSet<>(handler.threads());
            assertThat(threads).hasSize(1);
            Thread loop = threads.iterator().next();
            assertThat(loop).isNotSameAs(Thread.currentThread());
            assertThat(loop.isVirtual()).isFalse();
            assertThat(loop.getName()).startsWith("mode-el");
        }
    }

    @Test
    void workerHandlersRunOnABoundedPoolOfPlatformThreads() {
        try (Broker broker = Broker.builder().name("mode-worker").ringSize(256).workerPoolSize(2).build()) {
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            Set<Thread> threads = ConcurrentHashMap.newKeySet();
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger done = new AtomicInteger();
            SubscribeOptions worker = SubscribeOptions.defaults().mode(ExecutionMode.WORKER);
            for (int i = 0; i < 4; i++) {
                broker.subscribe("a", message -> {
                    threads.add(Thread.currentThread());
                    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    Await.quietly(release);
                    running.decrementAndGet();
                    done.incrementAndGet();
                }, worker);
            }
            broker.publish("a", "x");
            try {
                Await.until("two worker handlers run at once", () -> running.get() == 2);
                Await.grace();
                assertThat(running.get()).as("handlers running at once on a pool of 2").isEqualTo(2);
            } finally {
                release.countDown();
            }
            Await.until("all four handlers ran", () -> done.get() == 4);
            assertThat(maxRunning.get()).isEqualTo(2);
            assertThat(threads).hasSizeBetween(1, 2).allSatisfy(thread -> {
                assertThat(thread.isVirtual()).isFalse();
                assertThat(thread.getName()).startsWith("mode-worker");
            });
        }
    }

    @Test
    void virtualHandlersRunOnVirtualThreads() {
        try (Broker broker = Broker.builder().name("mode-virtual").ringSize(256).build()) {
            RecordingHandler handler = new RecordingHandler();
            broker.subscribe("a", handler, SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL));
            for (int i = 0; i < 100; i++) {
                broker.publish("a", i);
            }
            handler.awaitCount(100);
            assertThat(handler.threads()).allSatisfy(thread -> assertThat(thread.isVirtual()).isTrue());
            assertThat(handler.payloads()).isEqualTo(range(100));
        }
    }

    @ParameterizedTest
    // PUBLISHER handlers run on each publisher's thread, concurrently (PublisherModeTest).
    @EnumSource(value = ExecutionMode.class, names = "PUBLISHER", mode = EnumSource.Mode.EXCLUDE)
    void orderedSubscriberSeesEachPublisherThreadsMessagesInPublishOrder(ExecutionMode mode) throws Exception {
        int publishers = 3;
        int perPublisher = 5_000;
        try (Broker broker = Broker.builder().name("mode-order").ringSize(128).workerPoolSize(4).build()) {
            int[] last = new int[publishers];
            Arrays.fill(last, -1);
            List<String> violations = new ArrayList<>();
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            AtomicInteger received = new AtomicInteger();
            SubscribeOptions options = SubscribeOptions.defaults().mode(mode).bufferSize(64);
            broker.subscribe("ordered.*", message -> {
                maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                int[] stamp = (int[]) message.payload();
                if (stamp[1] != last[stamp[0]] + 1 && violations.size() < 10) {
                    violations.add("publisher " + stamp[0] + ": " + stamp[1] + " after " + last[stamp[0]]);
                }
                last[stamp[0]] = stamp[1];
                if (stamp[1] % 64 == 0) {
                    // Now and then a slower call, so that messages pile up behind it.
                    LockSupport.parkNanos(50_000);
                }
                running.decrementAndGet();
                received.incrementAndGet();
            }, options);

            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < publishers; p++) {
                int publisher = p;
                threads.add(Thread.ofPlatform().name("publisher-" + p).start(() -> {
                    for (int i = 0; i < perPublisher; i++) {
                        broker.publish("ordered." + (i % 3), new int[] {publisher, i});
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            Await.until("every message delivered", () -> received.get() == publishers * perPublisher, received::get);
            assertThat(violations).isEmpty();
            assertThat(maxRunning.get()).as("an ordered subscriber runs one handler at a time").isEqualTo(1);
            for (int p = 0; p < publishers; p++) {
                assertThat(last[p]).isEqualTo(perPublisher - 1);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"WORKER", "VIRTUAL"})
    void unorderedSubscriberRunsUpToMaxConcurrencyHandlersAtOnce(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("mode-unordered").ringSize(256).workerPoolSize(8).build()) {
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            CountDownLatch release = new CountDownLatch(1);
            broker.subscribe("a", message -> {
                maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                Await.quietly(release);
                running.decrementAndGet();
                done.incrementAndGet();
            }, SubscribeOptions.defaults().mode(mode).ordered(false).maxConcurrency(3));
            for (int i = 0; i < 10; i++) {
                broker.publish("a", i);
            }
            try {
                Await.until("three handlers run at once", () -> running.get() == 3, running::get);
                Await.grace();
                assertThat(running.get()).isEqualTo(3);
            } finally {
                release.countDown();
            }
            Await.until("every message handled", () -> done.get() == 10, done::get);
            assertThat(maxRunning.get()).isEqualTo(3);
        }
    }

    @Test
    void everySubscriptionIsServedByOneEventLoop() {
        try (Broker broker = Broker.builder().name("mode-loops").ringSize(256).eventLoops(2).build()) {
            List<RecordingHandler> handlers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                RecordingHandler handler = new RecordingHandler();
                handlers.add(handler);
                broker.subscribe("a", handler);
            }
            for (int i = 0; i < 200; i++) {
                broker.publish("a", i);
            }
            Set<Thread> loops = new HashSet<>();
            for (RecordingHandler handler : handlers) {
                handler.awaitCount(200);
                assertThat(handler.payloads()).isEqualTo(range(200));
                assertThat(new HashSet<>(handler.threads())).hasSize(1);
                loops.addAll(handler.threads());
            }
            assertThat(loops).hasSizeBetween(1, 2)
                    .allSatisfy(thread -> assertThat(thread.getName()).startsWith("mode-loops"));
        }
    }

    @ParameterizedTest
    @EnumSource(WaitStrategy.class)
    void everyWaitStrategyDeliversEverything(WaitStrategy waitStrategy) {
        try (Broker broker = Broker.builder().name("mode-wait").ringSize(64).waitStrategy(waitStrategy).build()) {
            RecordingHandler eventLoop = new RecordingHandler();
            RecordingHandler worker = new RecordingHandler();
            broker.subscribe("a", eventLoop);
            broker.subscribe("a", worker, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            for (int i = 0; i < 2_000; i++) {
                broker.publish("a", i);
            }
            eventLoop.awaitCount(2_000);
            worker.awaitCount(2_000);
            assertThat(eventLoop.payloads()).isEqualTo(range(2_000));
            assertThat(worker.payloads()).isEqualTo(range(2_000));
        }
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void handlerSeesSubjectReplyToHeadersAndPayloadAsPublished(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("mode-fields").ringSize(64).build()) {
            RecordingHandler handler = new RecordingHandler();
            broker.subscribe("a.>", handler, SubscribeOptions.defaults().mode(mode));
            Headers headers = Headers.of("k", "v1", "k", "v2", "other", "x");
            broker.publish("a.full", "reply.here", headers, "payload");
            broker.publish("a.bare", null);
            broker.publish("a.null.headers", "r", null, 42);
            handler.awaitCount(3);
            List<Message> messages = handler.messages();
            assertThat(messages.get(0).subject()).isEqualTo("a.full");
            assertThat(messages.get(0).replyTo()).isEqualTo("reply.here");
            assertThat(messages.get(0).headers()).isEqualTo(headers);
            assertThat(messages.get(0).headers().all("k")).containsExactly("v1", "v2");
            assertThat(messages.get(0).payload()).isEqualTo("payload");
            assertThat(messages.get(1).subject()).isEqualTo("a.bare");
            assertThat(messages.get(1).replyTo()).isNull();
            assertThat(messages.get(1).headers()).isNotNull();
            assertThat(messages.get(1).headers().isEmpty()).isTrue();
            assertThat(messages.get(1).payload()).isNull();
            assertThat(messages.get(2).headers().isEmpty()).isTrue();
            assertThat(messages.get(2).payload(Integer.class)).isEqualTo(42);
        }
    }

    @Test
    void eventLoopUnorderedIsRejectedAsInconsistent() {
        try (Broker broker = Broker.builder().name("mode-bad").ringSize(64).build()) {
            SubscribeOptions unordered = SubscribeOptions.defaults().mode(ExecutionMode.EVENT_LOOP).ordered(false);
            assertThatThrownBy(() -> broker.subscribe("a", message -> { }, unordered))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    static List<Object> range(int count) {
        List<Object> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(i);
        }
        return list;
    }
}
