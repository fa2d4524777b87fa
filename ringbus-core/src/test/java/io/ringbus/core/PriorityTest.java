package io.ringbus.core;

import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Message priority where messages wait for a subscriber (WORKER and VIRTUAL buffers): higher first,
 * publish order within a priority, lowest dropped first on overflow, and no starvation.
 */
@Timeout(60)
class PriorityTest {

    /** A handler that holds its first call until released, recording every payload in handling order. */
    private static final class Gate implements MessageHandler {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<Object> handled = new CopyOnWriteArrayList<>();

        @Override
        public void onMessage(Message message) {
            handled.add(message.payload());
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void publish(Broker broker, String subject, Object payload, int priority) {
        broker.publish(subject, null, Message.priorityHeaders(priority), payload);
    }

    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"WORKER", "VIRTUAL"})
    void anUrgentMessagePublishedAfterTenThousandRoutineOnesIsHandledBeforeThem(ExecutionMode mode)
            throws Exception {
        try (Broker broker = Broker.builder().name("priority").ringSize(1_024).build()) {
            Gate gate = new Gate();
            broker.subscribe("jobs", gate, SubscribeOptions.defaults().mode(mode).bufferSize(16_384));
            broker.publish("jobs", "first");
            gate.entered.await();
            for (int i = 0; i < 10_000; i++) {
                broker.publish("jobs", i); // default priority 4
            }
            publish(broker, "jobs", "urgent", 9);
            Await.until("all buffered", () -> broker.stats().subscriptions().getFirst().pending() == 10_001,
                    () -> broker.stats().subscriptions());
            gate.release.countDown();
            Await.until("all handled", () -> gate.handled.size() == 10_002, () -> gate.handled.size());
            // The one in the handler, then the urgent one: one message's handling time behind.
            assertThat(gate.handled.subList(0, 2)).containsExactly("first", "urgent");
            List<Object> rest = gate.handled.subList(2, 10_002);
            assertThat(rest).isEqualTo(range(10_000));
        }
    }

    @Test
    void withinOnePriorityEachPublishersOrderIsKept() throws Exception {
        try (Broker broker = Broker.builder().name("priority").ringSize(1_024).build()) {
            Gate gate = new Gate();
            broker.subscribe("jobs", gate, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(8_192));
            broker.publish("jobs", "first");
            gate.entered.await();
            List<Thread> publishers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int publisher = t;
                publishers.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 1_000; i++) {
                        publish(broker, "jobs", publisher + ":" + i % 3 + ":" + i, new int[] {2, 4, 7}[i % 3]);
                    }
                }));
            }
            for (Thread p : publishers) {
                p.join();
            }
            Await.until("all buffered", () -> broker.stats().subscriptions().getFirst().pending() == 2_000);
            gate.release.countDown();
            Await.until("all handled", () -> gate.handled.size() == 2_001, () -> gate.handled.size());
            // Per publisher and priority, increasing i.
            int[][] last = new int[2][3];
            for (int[] row : last) {
                java.util.Arrays.fill(row, -1);
            }
            for (Object payload : gate.handled.subList(1, 2_001)) {
                String[] parts = ((String) payload).split(":");
                int publisher = Integer.parseInt(parts[0]);
                int level = Integer.parseInt(parts[1]);
                int i = Integer.parseInt(parts[2]);
                assertThat(i).as("publisher %d, level %d", publisher, level).isGreaterThan(last[publisher][level]);
                last[publisher][level] = i;
            }
        }
    }

    @Test
    void aFullBufferDropsTheLowestPriorityFirstAndNeverAHigherOneForALowerOne() throws Exception {
        try (Broker broker = Broker.builder().name("priority").build()) {
            Gate gate = new Gate();
            Subscription sub = broker.subscribe("jobs", gate, SubscribeOptions.defaults().mode(ExecutionMode.WORKER)
                    .bufferSize(3).overflow(OverflowPolicy.DROP_LOWEST_PRIORITY));
            broker.publish("jobs", "first");
            gate.entered.await();
            publish(broker, "jobs", "p1", 1);
            publish(broker, "jobs", "p5", 5);
            publish(broker, "jobs", "p3", 3);
            publish(broker, "jobs", "p8", 8);  // full: p1 goes
            publish(broker, "jobs", "p0", 0);  // lower than all buffered: p0 itself goes
            publish(broker, "jobs", "p9", 9);  // p3 goes
            Await.until("three dropped", () -> sub.dropped() == 3, sub::dropped);
            gate.release.countDown();
            Await.until("the rest handled", () -> gate.handled.size() == 4, () -> gate.handled);
            assertThat(gate.handled).containsExactly("first", "p9", "p8", "p5");
            assertThat(broker.stats().dropped().get(DropReason.OVERFLOW_DROP_LOWEST_PRIORITY)).isEqualTo(3);
        }
    }

    @Test
    void aConstantUrgentStreamDoesNotStarveRoutineMessages() throws Exception {
        try (Broker broker = Broker.builder().name("priority").ringSize(1_024).build()) {
            Gate gate = new Gate();
            broker.subscribe("jobs", gate, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(8_192));
            broker.publish("jobs", "first");
            gate.entered.await();
            for (int i = 0; i < 10; i++) {
                publish(broker, "jobs", "routine-" + i, 0);
            }
            for (int i = 0; i < 5_000; i++) {
                publish(broker, "jobs", "urgent-" + i, 9);
            }
            Await.until("all buffered", () -> broker.stats().subscriptions().getFirst().pending() == 5_010);
            gate.release.countDown();
            Await.until("all handled", () -> gate.handled.size() == 5_011, () -> gate.handled.size());
            // One take in 16 serves the lowest waiting: the ten routine messages are all handled
            // within the first 16 x 10 takes, long before the urgent backlog is gone.
            int lastRoutine = 0;
            for (int i = 0; i < gate.handled.size(); i++) {
                if (String.valueOf(gate.handled.get(i)).startsWith("routine-")) {
                    lastRoutine = i;
                }
            }
            assertThat(lastRoutine).isLessThanOrEqualTo(1 + Message.PRIORITY_SHARE * 10);
        }
    }

    /** Without a buffer (EVENT_LOOP, PUBLISHER) or with nothing waiting, priorities reorder nothing. */
    @ParameterizedTest
    @EnumSource(ExecutionMode.class)
    void aSubscriberThatKeepsUpSeesPublishOrderUnchanged(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("priority").build()) {
            RecordingHandler handler = new RecordingHandler();
            broker.subscribe("jobs", handler, SubscribeOptions.defaults().mode(mode));
            boolean buffered = mode == ExecutionMode.WORKER || mode == ExecutionMode.VIRTUAL;
            for (int i = 0; i < 200; i++) {
                publish(broker, "jobs", i, i % 10);
                if (buffered) {
                    handler.awaitCount(i + 1); // it keeps up: nothing waits when the next comes
                }
            }
            handler.awaitCount(200);
            assertThat(handler.payloads()).isEqualTo(range(200));
        }
    }

    @Test
    void priorityComesFromItsHeaderAndABadValueIsTheDefault() {
        assertThat(Message.of("s", null, null, null).priority()).isEqualTo(Message.DEFAULT_PRIORITY);
        assertThat(Message.of("s", null, Message.priorityHeaders(9), null).priority()).isEqualTo(9);
        assertThat(Message.of("s", null, Headers.of(Message.PRIORITY_HEADER, "0"), null).priority()).isZero();
        assertThat(Message.of("s", null, Headers.of(Message.PRIORITY_HEADER, "12"), null).priority()).isEqualTo(4);
        assertThat(Message.of("s", null, Headers.of(Message.PRIORITY_HEADER, "x"), null).priority()).isEqualTo(4);
        assertThat(Message.of("s", null, NatsHeaderBlock.wrap(
                "NATS/1.0\r\nRingbus-Priority: 7\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), null)
                .priority()).isEqualTo(7);
        assertThatThrownBy(() -> Message.priorityHeaders(10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("priority must be in 0..9: priority=10");
    }

    private static List<Object> range(int n) {
        List<Object> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(i);
        }
        return list;
    }
}
