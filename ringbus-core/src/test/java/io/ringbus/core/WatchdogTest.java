package io.ringbus.core;

import io.ringbus.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/** The blocked-handler watchdog: warnings while a handler runs past its limit, none otherwise. */
@Timeout(60)
class WatchdogTest {
    private static final Duration LIMIT = Duration.ofMillis(100);
    private static final Duration INTERVAL = Duration.ofMillis(20);

    private final List<BlockedHandler> warnings = new CopyOnWriteArrayList<>();

    private BrokerBuilder watched(String name) {
        return Broker.builder().name(name).ringSize(64).watchdogInterval(INTERVAL).blockedHandlerListener(warnings::add);
    }

    /**
     * Blocks like a slow handler until the watchdog has warned {@code times} times (or 10 s),
     * sleeping in small steps so that its stack shows this method and {@code Thread.sleep}.
     */
    private void blockInHandler(int times) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (warnings.size() < times && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static boolean hasFrame(StackTraceElement[] stack, String method) {
        return Arrays.stream(stack).anyMatch(frame -> frame.getMethodName().equals(method)
                && frame.getClassName().equals(WatchdogTest.class.getName()));
    }

    @Test
    void blockedEventLoopHandlerIsReportedRepeatedlyWithItsStack() {
        try (Broker broker = watched("watchdog-el").maxEventLoopExecuteTime(LIMIT).build()) {
            CountDownLatch done = new CountDownLatch(1);
            Subscription subscription = broker.subscribe("slow.subject", message -> {
                blockInHandler(3);
                done.countDown();
            });
            broker.publish("slow.subject", "x");
            Await.latch(done, "the blocked handler returned");
            assertThat(warnings).hasSizeGreaterThanOrEqualTo(3);
            for (BlockedHandler warning : warnings) {
                assertThat(warning.threadName()).startsWith("watchdog-el");
                assertThat(warning.virtual()).isFalse();
                assertThat(warning.mode()).isEqualTo(ExecutionMode.EVENT_LOOP);
                assertThat(warning.subject()).isEqualTo("slow.subject");
                assertThat(warning.subscription().id()).isEqualTo(subscription.id());
                assertThat(warning.limit()).isEqualTo(LIMIT);
                assertThat(warning.elapsed()).isGreaterThanOrEqualTo(LIMIT);
                assertThat(hasFrame(warning.stackTrace(), "blockInHandler"))
                        .as("the stack shows the blocked handler: %s", Arrays.toString(warning.stackTrace()))
                        .isTrue();
            }
            assertThat(warnings.get(warnings.size() - 1).elapsed()).isGreaterThan(warnings.get(0).elapsed());
            Await.until("the counter matches the warnings", () -> broker.stats().watchdogWarnings() == warnings.size(),
                    () -> broker.stats().watchdogWarnings() + " counted, " + warnings.size() + " received");
        }
    }

    @Test
    void blockedVirtualHandlerIsReportedAsVirtual() {
        try (Broker broker = watched("watchdog-virtual").maxVirtualExecuteTime(LIMIT).build()) {
            CountDownLatch done = new CountDownLatch(1);
            Subscription subscription = broker.subscribe("slow.virtual", message -> {
                blockInHandler(2);
                done.countDown();
            }, SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL));
            broker.publish("slow.virtual", "x");
            Await.latch(done, "the blocked handler returned");
            assertThat(warnings).hasSizeGreaterThanOrEqualTo(2).allSatisfy(warning -> {
                assertThat(warning.virtual()).isTrue();
                assertThat(warning.mode()).isEqualTo(ExecutionMode.VIRTUAL);
                assertThat(warning.subject()).isEqualTo("slow.virtual");
                assertThat(warning.subscription().id()).isEqualTo(subscription.id());
                assertThat(warning.limit()).isEqualTo(LIMIT);
                assertThat(warning.elapsed()).isGreaterThanOrEqualTo(LIMIT);
                assertThat(hasFrame(warning.stackTrace(), "blockInHandler")).isTrue();
            });
            Await.until("the counter matches the warnings", () -> broker.stats().watchdogWarnings() == warnings.size());
        }
    }

    @Test
    void blockedWorkerHandlerIsReportedWithItsPoolThread() {
        try (Broker broker = watched("watchdog-worker").maxWorkerExecuteTime(LIMIT).build()) {
            CountDownLatch done = new CountDownLatch(1);
            Subscription subscription = broker.subscribe("slow.worker", message -> {
                blockInHandler(2);
                done.countDown();
            }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            broker.publish("slow.worker", "x");
            Await.latch(done, "the blocked handler returned");
            assertThat(warnings).hasSizeGreaterThanOrEqualTo(2).allSatisfy(warning -> {
                assertThat(warning.virtual()).isFalse();
                assertThat(warning.threadName()).startsWith("watchdog-worker");
                assertThat(warning.mode()).isEqualTo(ExecutionMode.WORKER);
                assertThat(warning.subscription().id()).isEqualTo(subscription.id());
                assertThat(warning.limit()).isEqualTo(LIMIT);
                assertThat(hasFrame(warning.stackTrace(), "blockInHandler")).isTrue();
            });
        }
    }

    @Test
    void fastHandlersProduceNoWarnings() {
        try (Broker broker = watched("watchdog-fast").maxEventLoopExecuteTime(Duration.ofMillis(200))
                .maxWorkerExecuteTime(Duration.ofMillis(200)).maxVirtualExecuteTime(Duration.ofMillis(200)).build()) {
            RecordingHandler eventLoop = new RecordingHandler();
            RecordingHandler worker = new RecordingHandler();
            RecordingHandler virtual = new RecordingHandler();
            broker.subscribe("fast", eventLoop);
            broker.subscribe("fast", worker, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
            broker.subscribe("fast", virtual, SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL));
            for (int i = 0; i < 1_000; i++) {
                broker.publish("fast", i);
            }
            eventLoop.awaitCount(1_000);
            worker.awaitCount(1_000);
            virtual.awaitCount(1_000);
            // Idle for longer than the limit: a watchdog that kept the last call's start would warn now.
            Await.grace();
            Await.grace();
            Await.grace();
            assertThat(warnings).isEmpty();
            assertThat(broker.stats().watchdogWarnings()).isZero();
        }
    }

    @Test
    void subscriptionLimitOverridesTheBrokersLimit() {
        try (Broker broker = watched("watchdog-override").maxEventLoopExecuteTime(Duration.ofSeconds(30)).build()) {
            CountDownLatch done = new CountDownLatch(1);
            Subscription strict = broker.subscribe("strict", message -> {
                blockInHandler(2);
                done.countDown();
            }, SubscribeOptions.defaults().maxExecuteTime(LIMIT));
            broker.publish("strict", "x");
            Await.latch(done, "the blocked handler returned");
            assertThat(warnings).hasSizeGreaterThanOrEqualTo(2).allSatisfy(warning -> {
                assertThat(warning.subscription().id()).isEqualTo(strict.id());
                assertThat(warning.limit()).isEqualTo(LIMIT);
            });
        }
    }

    @Test
    void lenientSubscriptionLimitSilencesTheBrokersLimit() throws Exception {
        try (Broker broker = watched("watchdog-lenient").maxEventLoopExecuteTime(Duration.ofMillis(50)).build()) {
            CountDownLatch done = new CountDownLatch(1);
            broker.subscribe("lenient", message -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                done.countDown();
            }, SubscribeOptions.defaults().maxExecuteTime(Duration.ofSeconds(30)));
            broker.publish("lenient", "x");
            Await.latch(done, "the slow handler returned");
            Await.grace();
            assertThat(warnings).isEmpty();
        }
    }
}
