package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Four producers publish concurrently over five subjects, each subject with four subscribers:
 * every subscriber must get exactly the messages of its subject, each producer's in publish
 * order, and the broker's counters must add up exactly. Fixed seeds; bounded by {@code @Timeout}.
 */
@Timeout(120)
class ConcurrentProducersStressTest {
    private static final long SEED = 42;
    private static final int PRODUCERS = 4;
    private static final int SUBJECTS = 5;
    private static final int SUBSCRIBERS_PER_SUBJECT = 4;

    /** The payload: who published it, and its place in that producer's sequence. */
    record Stamp(int producer, int subject, int seq) {
    }

    /** One subscriber's view, checked as it goes. Called one message at a time (ordered). */
    static final class OrderChecker implements MessageHandler {
        final int subject;
        final int[] lastSeq = new int[PRODUCERS];
        final long[] count = new long[PRODUCERS];
        final long expectedTotal;
        final CountDownLatch complete;
        final List<String> violations = new ArrayList<>();
        long total;

        OrderChecker(int subject, long expectedTotal, CountDownLatch complete) {
            this.subject = subject;
            this.expectedTotal = expectedTotal;
            this.complete = complete;
            Arrays.fill(lastSeq, -1);
        }

        @Override
        public void onMessage(Message message) {
            Stamp stamp = (Stamp) message.payload();
            if (stamp.subject() != subject || !message.subject().equals("stress." + subject)) {
                violation("subject " + message.subject() + " with " + stamp);
            }
            if (stamp.seq() <= lastSeq[stamp.producer()]) {
                violation("producer " + stamp.producer() + ": seq " + stamp.seq() + " after "
                        + lastSeq[stamp.producer()]);
            }
            lastSeq[stamp.producer()] = stamp.seq();
            count[stamp.producer()]++;
            if (++total == expectedTotal) {
                complete.countDown();
            }
        }

        private void violation(String what) {
            if (violations.size() < 10) {
                violations.add(what);
            }
        }
    }

    static Stream<Arguments> configurations() {
        List<Arguments> list = new ArrayList<>();
        for (int eventLoops : new int[] {1, 2}) {
            for (ExecutionMode mode : ExecutionMode.values()) {
                list.add(arguments(eventLoops, mode));
            }
        }
        return list.stream();
    }

    @ParameterizedTest(name = "eventLoops={0}, mode={1}")
    @MethodSource("configurations")
    void deliversExactCountsInPublishOrderPerProducer(int eventLoops, ExecutionMode mode) throws Exception {
        int perProducer = 100_000;
        // Decide every subject up front, so that the expected counts are known exactly.
        int[][] subjects = new int[PRODUCERS][perProducer];
        long[][] expected = new long[SUBJECTS][PRODUCERS];
        for (int p = 0; p < PRODUCERS; p++) {
            Random random = new Random(SEED + p);
            for (int i = 0; i < perProducer; i++) {
                subjects[p][i] = random.nextInt(SUBJECTS);
                expected[subjects[p][i]][p]++;
            }
        }
        try (Broker broker = Broker.builder().name("stress").ringSize(1024).eventLoops(eventLoops)
                .workerPoolSize(4).build()) {
            CountDownLatch complete = new CountDownLatch(SUBJECTS * SUBSCRIBERS_PER_SUBJECT);
            List<OrderChecker> checkers = new ArrayList<>();
            for (int s = 0; s < SUBJECTS; s++) {
                long total = 0;
                for (long count : expected[s]) {
                    total += count;
                }
                for (int k = 0; k < SUBSCRIBERS_PER_SUBJECT; k++) {
                    OrderChecker checker = new OrderChecker(s, total, complete);
                    checkers.add(checker);
                    // Half literal, half wildcard subscriptions; both match exactly one subject.
                    String pattern = k % 2 == 0 ? "stress." + s : "*." + s;
                    // PUBLISHER handlers are called by every producer at once: thread-safe by contract.
                    MessageHandler handler = mode == ExecutionMode.PUBLISHER ? locked(checker) : checker;
                    broker.subscribe(pattern, handler, SubscribeOptions.defaults().mode(mode).bufferSize(256));
                }
            }

            CountDownLatch start = new CountDownLatch(1);
            AtomicLong failures = new AtomicLong();
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int producer = p;
                producers.add(Thread.ofPlatform().name("stress-producer-" + p).start(() -> {
                    try {
                        Await.latch(start, "start");
                        String[] names = new String[SUBJECTS];
                        for (int s = 0; s < SUBJECTS; s++) {
                            names[s] = "stress." + s;
                        }
                        for (int i = 0; i < perProducer; i++) {
                            int subject = subjects[producer][i];
                            broker.publish(names[subject], new Stamp(producer, subject, i));
                        }
                    } catch (Throwable t) {
                        failures.incrementAndGet();
                    }
                }));
            }
            start.countDown();
            for (Thread producer : producers) {
                producer.join();
            }
            assertThat(failures.get()).isZero();
            Await.latch(complete, "every subscriber got all of its subject's messages");
            Await.grace();

            for (OrderChecker checker : checkers) {
                assertThat(checker.violations).as("subscriber of stress.%d", checker.subject).isEmpty();
                assertThat(checker.count).as("per-producer counts of stress.%d", checker.subject)
                        .containsExactly(expected[checker.subject]);
            }
            BrokerStats stats = broker.stats();
            long published = (long) PRODUCERS * perProducer;
            assertThat(stats.published()).isEqualTo(published);
            assertThat(stats.delivered()).isEqualTo(published * SUBSCRIBERS_PER_SUBJECT);
            assertThat(stats.droppedTotal()).isZero();
            assertThat(stats.handlerErrors()).isZero();
        }
    }
    @ParameterizedTest(name = "mode={0}")
    @EnumSource(ExecutionMode.class)
    void queueGroupGetsEachMessageExactlyOnceUnderConcurrentProducers(ExecutionMode mode) throws Exception {
        int perProducer = 25_000;
        int total = PRODUCERS * perProducer;
        try (Broker broker = Broker.builder().name("stress-group").ringSize(1024).eventLoops(2).workerPoolSize(4)
                .build()) {
            AtomicIntegerArray seen = new AtomicIntegerArray(total);
            AtomicLong handled = new AtomicLong();
            for (int k = 0; k < 3; k++) {
                broker.subscribe(k == 0 ? "group.*" : "group.>", message -> {
                    Stamp stamp = (Stamp) message.payload();
                    seen.incrementAndGet(stamp.producer() * perProducer + stamp.seq());
                    handled.incrementAndGet();
                }, SubscribeOptions.defaults().mode(mode).queueGroup("workers").bufferSize(256));
            }
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int producer = p;
                producers.add(Thread.ofPlatform().name("stress-group-producer-" + p).start(() -> {
                    for (int i = 0; i < perProducer; i++) {
                        broker.publish("group." + (i % SUBJECTS), new Stamp(producer, i % SUBJECTS, i));
                    }
                }));
            }
            for (Thread producer : producers) {
                producer.join();
            }
            Await.until("the group handled every message", () -> handled.get() >= total, handled::get);
            Await.grace();
            List<Integer> wrong = new ArrayList<>();
            for (int i = 0; i < total && wrong.size() < 10; i++) {
                if (seen.get(i) != 1) {
                    wrong.add(i);
                }
            }
            assertThat(wrong).as("messages not handled exactly once by the group").isEmpty();
            assertThat(handled.get()).isEqualTo(total);
        }
    }

    private static MessageHandler locked(MessageHandler handler) {
        java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        return message -> {
            lock.lock();
            try {
                handler.onMessage(message);
            } finally {
                lock.unlock();
            }
        };
    }
}
