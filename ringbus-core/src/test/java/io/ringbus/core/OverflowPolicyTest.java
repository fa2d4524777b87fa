package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The overflow policies of a full WORKER or VIRTUAL subscriber buffer. Each scenario blocks the
 * handler on the first message, publishes 20 more into a buffer of 4, then releases it, so what
 * survives is exact; other subscribers of the same subject must get everything regardless.
 */
@Timeout(60)
class OverflowPolicyTest {
    private static final int BUFFER = 4;
    private static final int MORE = 20;

    /** A subscriber whose handler holds the first message until released. */
    static final class Held implements MessageHandler {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final RecordingHandler recorder = new RecordingHandler();
        private final AtomicBoolean first = new AtomicBoolean(true);

        @Override
        public void onMessage(Message message) {
            recorder.onMessage(message);
            if (first.getAndSet(false)) {
                entered.countDown();
                Await.quietly(release);
            }
        }
    }

    /** What the other subscribers of the subject must see: every message, in order. */
    private record Witnesses(RecordingHandler eventLoop, RecordingHandler blockingWorker) {
        static Witnesses subscribe(Broker broker) {
            Witnesses witnesses = new Witnesses(new RecordingHandler(), new RecordingHandler());
            broker.subscribe("a", witnesses.eventLoop);
            broker.subscribe("a", witnesses.blockingWorker, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            return witnesses;
        }

        void assertGotAll(int count) {
            eventLoop.awaitCount(count);
            blockingWorker.awaitCount(count);
            assertThat(eventLoop.payloads()).isEqualTo(ExecutionModeTest.range(count));
            assertThat(blockingWorker.payloads()).isEqualTo(ExecutionModeTest.range(count));
        }
    }

    private static Subscription fillPastBuffer(Broker broker, Held held, ExecutionMode mode, OverflowPolicy policy) {
        Subscription subscription = broker.subscribe("a", held,
                SubscribeOptions.defaults().mode(mode).bufferSize(BUFFER).overflow(policy));
        broker.publish("a", 0);
        Await.latch(held.entered, "the handler took the first message");
        for (int i = 1; i <= MORE; i++) {
            broker.publish("a", i);
        }
        return subscription;
    }

    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"WORKER", "VIRTUAL"})
    void dropOldestKeepsTheNewestMessagesAndCountsTheRest(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("overflow").ringSize(64).build()) {
            Witnesses witnesses = Witnesses.subscribe(broker);
            Held held = new Held();
            Subscription subscription;
            try {
                subscription = fillPastBuffer(broker, held, mode, OverflowPolicy.DROP_OLDEST);
                Await.until("the overflow was dropped", () -> subscription.dropped() == MORE - BUFFER,
                        subscription::dropped);
                assertThat(subscription.pending()).isEqualTo(BUFFER);
                assertThat(subscription.isActive()).isTrue();
            } finally {
                held.release.countDown();
            }
            held.recorder.awaitCount(1 + BUFFER);
            Await.grace();
            assertThat(held.recorder.payloads()).containsExactly(0, 17, 18, 19, 20);
            assertThat(subscription.delivered() + subscription.dropped()).isEqualTo(1 + MORE);
            BrokerStats stats = broker.stats();
            assertThat(stats.dropped().get(DropReason.OVERFLOW_DROP_OLDEST)).isEqualTo(MORE - BUFFER);
            assertThat(stats.droppedTotal()).isEqualTo(MORE - BUFFER);
            witnesses.assertGotAll(1 + MORE);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"WORKER", "VIRTUAL"})
    void dropNewestKeepsTheFirstMessagesAndCountsTheRest(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("overflow").ringSize(64).build()) {
            Witnesses witnesses = Witnesses.subscribe(broker);
            Held held = new Held();
            Subscription subscription;
            try {
                subscription = fillPastBuffer(broker, held, mode, OverflowPolicy.DROP_NEWEST);
                Await.until("the overflow was dropped", () -> subscription.dropped() == MORE - BUFFER,
                        subscription::dropped);
                assertThat(subscription.pending()).isEqualTo(BUFFER);
            } finally {
                held.release.countDown();
            }
            held.recorder.awaitCount(1 + BUFFER);
            Await.grace();
            assertThat(held.recorder.payloads()).containsExactly(0, 1, 2, 3, 4);
            assertThat(subscription.delivered() + subscription.dropped()).isEqualTo(1 + MORE);
            BrokerStats stats = broker.stats();
            assertThat(stats.dropped().get(DropReason.OVERFLOW_DROP_NEWEST)).isEqualTo(MORE - BUFFER);
            assertThat(stats.droppedTotal()).isEqualTo(MORE - BUFFER);
            witnesses.assertGotAll(1 + MORE);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ExecutionMode.class, names = {"WORKER", "VIRTUAL"})
    void disconnectClosesTheSlowConsumerAndCountsWhatItLost(ExecutionMode mode) {
        try (Broker broker = Broker.builder().name("overflow").ringSize(64).build()) {
            Witnesses witnesses = Witnesses.subscribe(broker);
            Held held = new Held();
            Subscription subscription;
            try {
                subscription = fillPastBuffer(broker, held, mode, OverflowPolicy.DISCONNECT);
                Await.until("the slow consumer is disconnected", () -> !subscription.isActive());
            } finally {
                held.release.countDown();
            }
            witnesses.assertGotAll(1 + MORE);
            Await.grace();
            // The buffer held 1..4; message 5 overflowed it: those five are lost, and the
            // subscription, closed, is no longer offered 6..20.
            assertThat(held.recorder.payloads()).containsExactly(0);
            assertThat(subscription.dropped()).isEqualTo(BUFFER + 1);
            BrokerStats stats = broker.stats();
            assertThat(stats.dropped().get(DropReason.SLOW_CONSUMER_DISCONNECT)).isEqualTo(BUFFER + 1);
            assertThat(stats.droppedTotal()).isEqualTo(BUFFER + 1);
            assertThat(stats.subscriptions()).extracting(BrokerStats.SubscriptionStats::id)
                    .doesNotContain(subscription.id());
        }
    }

    static Stream<Arguments> droppingPolicies() {
        List<Arguments> list = new ArrayList<>();
        for (ExecutionMode mode : List.of(ExecutionMode.WORKER, ExecutionMode.VIRTUAL)) {
            for (OverflowPolicy policy : List.of(OverflowPolicy.DROP_OLDEST, OverflowPolicy.DROP_NEWEST)) {
                list.add(arguments(mode, policy));
            }
        }
        return list.stream();
    }

    @ParameterizedTest
    @MethodSource("droppingPolicies")
    void everyMessageIsEitherDeliveredOrCountedAsDropped(ExecutionMode mode, OverflowPolicy policy) throws Exception {
        int messages = 5_000;
        try (Broker broker = Broker.builder().name("overflow").ringSize(256).build()) {
            List<Integer> received = new ArrayList<>();
            Subscription slow = broker.subscribe("a", message -> {
                received.add((Integer) message.payload());
                LockSupport.parkNanos(20_000);
            }, SubscribeOptions.defaults().mode(mode).bufferSize(8).overflow(policy));
            RecordingHandler witness = new RecordingHandler();
            broker.subscribe("a", witness);
            Thread publisher = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < messages; i++) {
                    broker.publish("a", i);
                }
            });
            publisher.join();
            witness.awaitCount(messages);
            Await.until("every message delivered or dropped",
                    () -> slow.delivered() + slow.dropped() == messages && slow.pending() == 0,
                    () -> slow.delivered() + " delivered, " + slow.dropped() + " dropped");
            Await.grace();
            assertThat(slow.delivered() + slow.dropped()).isEqualTo(messages);
            assertThat(received).hasSize((int) slow.delivered()).isSorted().doesNotHaveDuplicates();
            DropReason reason = policy == OverflowPolicy.DROP_OLDEST
                    ? DropReason.OVERFLOW_DROP_OLDEST : DropReason.OVERFLOW_DROP_NEWEST;
            BrokerStats stats = broker.stats();
            assertThat(stats.dropped().get(reason)).isEqualTo(slow.dropped());
            assertThat(stats.droppedTotal()).isEqualTo(slow.dropped());
            assertThat(witness.payloads()).isEqualTo(ExecutionModeTest.range(messages));
        }
    }
}
