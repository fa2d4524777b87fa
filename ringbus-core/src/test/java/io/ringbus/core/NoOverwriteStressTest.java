package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tiny ring (8 slots) wraps thousands of times under slow subscribers: no handler may ever see
 * a message that a later publish overwrote, neither during the call nor in a copy kept after it.
 * Every payload names its own subject and sequence, as do the reply subject and a header.
 */
@Timeout(90)
class NoOverwriteStressTest {
    private static final long SEED = 0xC0FFEEL;
    private static final int PRODUCERS = 2;
    private static final int PER_PRODUCER = 10_000;
    private static final int SUBJECTS = 4;

    record Stamp(String subject, int producer, int seq) {
        String replyTo() {
            return "reply." + producer + "." + seq;
        }
    }

    /** Checks one subscriber's messages; keeps a copy of some to check again at the end. */
    static final class Checker implements MessageHandler {
        final ConcurrentLinkedQueue<String> violations;
        final ConcurrentLinkedQueue<Message> kept = new ConcurrentLinkedQueue<>();
        final AtomicInteger received = new AtomicInteger();
        final boolean slow;

        Checker(ConcurrentLinkedQueue<String> violations, boolean slow) {
            this.violations = violations;
            this.slow = slow;
        }

        @Override
        public void onMessage(Message message) {
            check(message, "on entry");
            int n = received.incrementAndGet();
            if (slow && n % 256 == 0) {
                // Now and then a long call: publishers run on and wrap the ring meanwhile.
                LockSupport.parkNanos(100_000);
            } else {
                // A short busy pause (no yield: on a loaded machine that costs a time slice).
                for (int i = 0; i < 64; i++) {
                    Thread.onSpinWait();
                }
            }
            check(message, "before return");
            if (n % 50 == 0) {
                kept.add(message.copy());
            }
        }

        void check(Message message, String when) {
            String problem = inconsistency(message);
            if (problem != null && violations.size() < 20) {
                violations.add(when + ": " + problem);
            }
        }
    }

    static String inconsistency(Message message) {
        Object payload = message.payload();
        if (!(payload instanceof Stamp stamp)) {
            return "payload " + payload + " on " + message.subject();
        }
        if (!stamp.subject().equals(message.subject())) {
            return "subject " + message.subject() + " with payload of " + stamp;
        }
        if (!stamp.replyTo().equals(message.replyTo())) {
            return "replyTo " + message.replyTo() + " with payload of " + stamp;
        }
        if (!String.valueOf(stamp.seq()).equals(message.headers().first("seq"))) {
            return "header seq=" + message.headers().first("seq") + " with payload of " + stamp;
        }
        return null;
    }

    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void handlersNeverSeeAMessageOverwrittenByALaterPublish(ExecutionMode mode) throws Exception {
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        try (Broker broker = Broker.builder().name("overwrite").ringSize(8).workerPoolSize(4).build()) {
            List<Checker> checkers = new ArrayList<>();
            Checker ordered = new Checker(violations, true);
            checkers.add(ordered);
            broker.subscribe("n.>", ordered, SubscribeOptions.defaults().mode(mode).bufferSize(4));
            Checker perSubject = new Checker(violations, false);
            checkers.add(perSubject);
            broker.subscribe("n.*", perSubject, SubscribeOptions.defaults().mode(mode).bufferSize(2));
            if (mode != ExecutionMode.EVENT_LOOP) {
                Checker unordered = new Checker(violations, true);
                checkers.add(unordered);
                broker.subscribe("n.>", unordered,
                        SubscribeOptions.defaults().mode(mode).ordered(false).maxConcurrency(4).bufferSize(8));
            }

            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int producer = p;
                producers.add(Thread.ofPlatform().name("overwrite-producer-" + p).start(() -> {
                    Random random = new Random(SEED + producer);
                    for (int seq = 0; seq < PER_PRODUCER; seq++) {
                        Stamp stamp = new Stamp("n." + random.nextInt(SUBJECTS), producer, seq);
                        broker.publish(stamp.subject(), stamp.replyTo(), Headers.of("seq", String.valueOf(seq)),
                                stamp);
                    }
                }));
            }
            for (Thread producer : producers) {
                producer.join();
            }
            int total = PRODUCERS * PER_PRODUCER;
            for (Checker checker : checkers) {
                Await.until("a subscriber got every message", () -> checker.received.get() >= total,
                        checker.received::get);
            }
            assertThat(violations).isEmpty();
            for (Checker checker : checkers) {
                assertThat(checker.received.get()).isEqualTo(total);
                assertThat(checker.kept).isNotEmpty();
                for (Message copy : checker.kept) {
                    assertThat(inconsistency(copy)).as("a copy kept after its handler returned").isNull();
                }
            }
            assertThat(broker.stats().droppedTotal()).isZero();
        }
    }
}
