package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ExecutionMode#PUBLISHER}: delivery on the publishing thread, inside publish. */
@Timeout(60)
class PublisherModeTest {
    @Test
    void theHandlerRunsOnThePublishingThreadBeforePublishReturns() {
        try (Broker broker = Broker.builder().name("publisher-mode").build()) {
            List<String> threads = new CopyOnWriteArrayList<>();
            broker.subscribe("direct", m -> threads.add(Thread.currentThread().getName()),
                    SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER));
            broker.publish("direct", "x");
            assertThat(threads).containsExactly(Thread.currentThread().getName());
            assertThat(broker.stats().published()).isEqualTo(1);
            assertThat(broker.stats().delivered()).isEqualTo(1);
        }
    }

    @Test
    void eachPublishersMessagesArriveInPublishOrderWhilePublishersRunConcurrently() throws Exception {
        int publishers = 4;
        int perPublisher = 50_000;
        try (Broker broker = Broker.builder().name("publisher-order").build()) {
            AtomicIntegerArray last = new AtomicIntegerArray(publishers);
            for (int p = 0; p < publishers; p++) {
                last.set(p, -1);
            }
            AtomicInteger violations = new AtomicInteger();
            Set<String> callers = ConcurrentHashMap.newKeySet();
            broker.subscribe("ordered.*", m -> {
                int[] stamp = (int[]) m.payload();
                callers.add(Thread.currentThread().getName());
                // Written only by the publisher whose stamp it is: order per publisher is checkable.
                if (last.get(stamp[0]) != stamp[1] - 1) {
                    violations.incrementAndGet();
                }
                last.set(stamp[0], stamp[1]);
            }, SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER));
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < publishers; p++) {
                int publisher = p;
                threads.add(Thread.ofPlatform().name("publisher-" + p).start(() -> {
                    for (int i = 0; i < perPublisher; i++) {
                        broker.publish("ordered." + (i % 7), new int[] {publisher, i});
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(violations.get()).isZero();
            for (int p = 0; p < publishers; p++) {
                assertThat(last.get(p)).isEqualTo(perPublisher - 1);
            }
            assertThat(callers).hasSize(publishers);
        }
    }

    @Test
    void aQueueGroupOfPublisherMembersGivesEachMessageToExactlyOneMember() {
        try (Broker broker = Broker.builder().name("publisher-group").build()) {
            AtomicInteger[] counts = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
            for (AtomicInteger count : counts) {
                broker.subscribe("work", m -> count.incrementAndGet(),
                        SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER).queueGroup("g"));
            }
            for (int i = 0; i < 3_000; i++) {
                broker.publish("work", i);
            }
            assertThat(counts[0].get() + counts[1].get() + counts[2].get()).isEqualTo(3_000);
            for (AtomicInteger count : counts) {
                assertThat(count.get()).as("members take turns").isEqualTo(1_000);
            }
        }
    }

    @Test
    void publisherAndEventLoopSubscribersOfOneSubjectBothGetEveryMessage() throws Exception {
        try (Broker broker = Broker.builder().name("publisher-mixed").build()) {
            AtomicInteger direct = new AtomicInteger();
            AtomicInteger loop = new AtomicInteger();
            broker.subscribe("mixed", m -> direct.incrementAndGet(),
                    SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER));
            broker.subscribe("mixed", m -> loop.incrementAndGet());
            for (int i = 0; i < 10_000; i++) {
                broker.publish("mixed", i);
            }
            assertThat(direct.get()).isEqualTo(10_000);
            Await.until("the event loop got every message", () -> loop.get() == 10_000, loop::get);
        }
    }

    @Test
    void unsubscribeAfterNeverDeliversMoreThanTheLimit() throws Exception {
        try (Broker broker = Broker.builder().name("publisher-limit").build()) {
            AtomicInteger got = new AtomicInteger();
            Subscription s = broker.subscribe("limited", m -> got.incrementAndGet(),
                    SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER));
            s.unsubscribeAfter(100);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 1_000; i++) {
                        broker.publish("limited", i);
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(got.get()).isEqualTo(100);
            assertThat(s.isActive()).isFalse();
        }
    }
}
