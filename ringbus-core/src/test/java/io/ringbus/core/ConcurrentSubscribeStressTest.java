package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The subscriber index under concurrent change: threads subscribe and unsubscribe at random
 * (fixed seeds) while another publishes; afterwards exactly the surviving subscriptions are
 * active and receive a fresh message, and the unsubscribed ones receive nothing new.
 */
@Timeout(90)
class ConcurrentSubscribeStressTest {
    private static final long SEED = 0x5EED_2025L;
    private static final int MUTATORS = 4;
    private static final int OPERATIONS = 3_000;
    private static final int SUBJECTS = 8;
    private static final String[] PATTERNS = {"s.0", "s.1", "s.5", "s.7", "s.*", "s.>", ">", "*.3"};
    private static final ExecutionMode[] MODES = {
            ExecutionMode.EVENT_LOOP, ExecutionMode.EVENT_LOOP, ExecutionMode.WORKER, ExecutionMode.VIRTUAL};

    /** A fresh message, published after every change is done. */
    record Fresh(String subject) {
    }

    /** One subscription made by a mutator, and what it received. */
    static final class Tracked {
        final String pattern;
        final AtomicInteger fresh = new AtomicInteger();
        volatile Subscription subscription;
        volatile boolean unsubscribed;

        Tracked(String pattern) {
            this.pattern = pattern;
        }

        void onMessage(Message message) {
            if (message.payload() instanceof Fresh) {
                fresh.incrementAndGet();
            }
        }

        int expectedFresh() {
            int count = 0;
            for (int i = 0; i < SUBJECTS; i++) {
                if (matches(pattern, "s." + i)) {
                    count++;
                }
            }
            return count;
        }
    }

    @Test
    void concurrentSubscribeAndUnsubscribeNeverLoseAnUpdate() throws Exception {
        try (Broker broker = Broker.builder().name("cow-stress").ringSize(1024).eventLoops(2).workerPoolSize(4)
                .build()) {
            AtomicBoolean publishing = new AtomicBoolean(true);
            AtomicInteger noise = new AtomicInteger();
            CountDownLatch publisherRunning = new CountDownLatch(1);
            Thread publisher = Thread.ofPlatform().name("cow-publisher").start(() -> {
                Random random = new Random(SEED);
                while (publishing.get()) {
                    broker.publish("s." + random.nextInt(SUBJECTS), "noise");
                    noise.incrementAndGet();
                    publisherRunning.countDown();
                }
            });
            Await.latch(publisherRunning, "the publisher runs");

            ConcurrentLinkedQueue<Tracked> all = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> mutators = new ArrayList<>();
            for (int m = 0; m < MUTATORS; m++) {
                long seed = SEED + m;
                mutators.add(Thread.ofPlatform().name("cow-mutator-" + m).start(() -> {
                    try {
                        Await.latch(start, "start");
                        mutate(broker, new Random(seed), all);
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            start.countDown();
            for (Thread mutator : mutators) {
                mutator.join();
            }
            publishing.set(false);
            publisher.join();
            assertThat(failures).isEmpty();
            assertThat(noise.get()).as("the publisher ran during the changes").isPositive();

            Set<Long> expectedActive = new HashSet<>();
            for (Tracked tracked : all) {
                assertThat(tracked.subscription.isActive()).isEqualTo(!tracked.unsubscribed);
                if (!tracked.unsubscribed) {
                    expectedActive.add(tracked.subscription.id());
                }
            }
            Set<Long> reported = new HashSet<>();
            for (BrokerStats.SubscriptionStats stats : broker.stats().subscriptions()) {
                reported.add(stats.id());
            }
            assertThat(reported).as("active subscriptions in stats").isEqualTo(expectedActive);

            for (int i = 0; i < SUBJECTS; i++) {
                broker.publish("s." + i, new Fresh("s." + i));
            }
            for (Tracked tracked : all) {
                if (!tracked.unsubscribed) {
                    int expected = tracked.expectedFresh();
                    Await.until("subscription " + tracked.subscription + " got its " + expected + " fresh messages",
                            () -> tracked.fresh.get() >= expected, tracked.fresh::get);
                }
            }
            Await.grace();
            List<String> wrong = new ArrayList<>();
            for (Tracked tracked : all) {
                int expected = tracked.unsubscribed ? 0 : tracked.expectedFresh();
                if (tracked.fresh.get() != expected && wrong.size() < 20) {
                    wrong.add(tracked.subscription + (tracked.unsubscribed ? " (unsubscribed)" : "") + " got "
                            + tracked.fresh.get() + " fresh messages, expected " + expected);
                }
            }
            assertThat(wrong).isEmpty();
        }
    }

    private static void mutate(Broker broker, Random random, ConcurrentLinkedQueue<Tracked> all) {
        List<Tracked> mine = new ArrayList<>();
        for (int op = 0; op < OPERATIONS; op++) {
            if (!mine.isEmpty() && random.nextInt(100) < 50) {
                Tracked tracked = mine.remove(random.nextInt(mine.size()));
                tracked.subscription.unsubscribe();
                tracked.unsubscribed = true;
            } else {
                Tracked tracked = new Tracked(PATTERNS[random.nextInt(PATTERNS.length)]);
                ExecutionMode mode = MODES[random.nextInt(MODES.length)];
                tracked.subscription = broker.subscribe(tracked.pattern, tracked::onMessage,
                        SubscribeOptions.defaults().mode(mode).bufferSize(64));
                mine.add(tracked);
                all.add(tracked);
            }
        }
    }

    /** The NATS rule, written independently of the broker's. */
    static boolean matches(String pattern, String subject) {
        String[] p = pattern.split("\\.");
        String[] s = subject.split("\\.");
        for (int i = 0; i < p.length; i++) {
            if (p[i].equals(">")) {
                return s.length > i;
            }
            if (i >= s.length || !(p[i].equals("*") || p[i].equals(s[i]))) {
                return false;
            }
        }
        return p.length == s.length;
    }
}
