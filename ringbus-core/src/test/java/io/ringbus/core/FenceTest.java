package io.ringbus.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(30)
class FenceTest {

    @Test
    void aFenceRunsAfterEverythingPublishedBeforeItOnEveryEventLoop() throws Exception {
        try (Broker broker = Broker.builder().name("fence").eventLoops(2).ringSize(1024).build()) {
            List<String> seen = new CopyOnWriteArrayList<>();
            // Two subscriptions land on different loops; the slow one lags behind the fast one.
            broker.subscribe("a", m -> seen.add("fast-" + m.payload()));
            broker.subscribe("a", m -> {
                sleepMillis(2);
                seen.add("slow-" + m.payload());
            });
            for (int i = 0; i < 50; i++) {
                broker.publish("a", i);
            }
            CountDownLatch fenced = new CountDownLatch(1);
            assertThat(broker.tryFence(() -> {
                seen.add("fence");
                fenced.countDown();
            })).isTrue();
            assertThat(fenced.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(seen).hasSize(101).endsWith("fence");
            assertThat(broker.stats().published()).isEqualTo(50);
        }
    }

    @Test
    void aFenceIsRefusedWhenTheRingIsFull() throws Exception {
        try (Broker broker = Broker.builder().name("fence-full").ringSize(2).build()) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch entered = new CountDownLatch(1);
            broker.subscribe("a", m -> {
                entered.countDown();
                awaitQuietly(release);
            });
            broker.publish("a", 1);
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            broker.publish("a", 2); // slot 0 is still being handled: the ring of 2 is now full
            assertThat(broker.tryFence(() -> { })).isFalse();
            release.countDown();
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
