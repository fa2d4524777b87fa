package io.ringbus.core.memory;

import io.ringbus.core.Backoff;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** ByteBudget: exact and overshooting admission, the lone large message, waits by the caller's rules, counters. */
class ByteBudgetTest {
    private static final Backoff PARK = new Backoff(1_000, 1_000_000);

    @Test
    void exactAdmissionHoldsTheLimitButLetsALoneLargeMessageThrough() {
        ByteBudget budget = new ByteBudget(100);
        assertThat(budget.tryAcquire(60)).isTrue();
        assertThat(budget.tryAcquire(41)).isFalse();
        assertThat(budget.tryAcquire(40)).isTrue();
        assertThat(budget.used()).isEqualTo(100);
        assertThat(budget.exceeded()).isFalse();
        budget.release(100);
        assertThat(budget.tryAcquire(1_000)).as("nothing held: a message over the limit passes").isTrue();
        assertThat(budget.exceeded()).isTrue();
        assertThat(budget.tryAcquire(1)).isFalse();
        assertThat(budget.refusals()).isEqualTo(2);
        assertThat(budget.limit()).isEqualTo(100);
    }

    @Test
    void overshootingAdmissionChecksThenAdds() {
        ByteBudget budget = new ByteBudget(100);
        assertThat(budget.tryAcquireOvershooting(100)).isTrue();
        assertThat(budget.tryAcquireOvershooting(1)).isFalse();
        budget.release(50);
        assertThat(budget.tryAcquireOvershooting(50)).isTrue();
        assertThat(budget.used()).isEqualTo(100);
        assertThat(budget.refusals()).isEqualTo(1);
    }

    @Test
    void addAndReleaseChangeTheBytesHeldWithoutAsking() {
        ByteBudget budget = new ByteBudget(10);
        budget.add(25);
        assertThat(budget.exceeded()).isTrue();
        budget.add(-20);
        assertThat(budget.exceeded()).isFalse();
        assertThat(budget.used()).isEqualTo(5);
    }

    @Test
    void acquireWaitsForReleasedBytesAndCountsTheWait() throws Exception {
        ByteBudget budget = new ByteBudget(100);
        budget.acquire(100, false, PARK, () -> { });
        assertThat(budget.waits()).isZero();
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> budget.acquire(30, false, PARK, () -> { }));
        while (budget.waits() == 0) {
            Thread.onSpinWait();
        }
        assertThat(waiting).isNotDone();
        budget.release(100);
        waiting.get(10, TimeUnit.SECONDS);
        assertThat(budget.used()).isEqualTo(30);
        assertThat(budget.waits()).isEqualTo(1);
    }

    @Test
    void aCheckThatThrowsGivesUpTheWaitAndTakesNothing() {
        ByteBudget budget = new ByteBudget(100);
        budget.add(100);
        assertThatThrownBy(() -> budget.acquire(10, true, PARK, () -> {
            throw new IllegalStateException("closed");
        })).isInstanceOf(IllegalStateException.class).hasMessage("closed");
        assertThat(budget.used()).isEqualTo(100);
    }

    @Test
    void aLimitBelowOneIsRefusedNamingIt() {
        assertThatThrownBy(() -> new ByteBudget(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit=0");
    }
}
