package io.ringbus.core.memory;

import io.ringbus.core.Backoff;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ByteBudget: exact and overshooting admission, the lone large message, waits by the caller's rules, woken waits,
 * counters.
 */
class ByteBudgetTest {
    private static final Backoff PARK = new Backoff(1_000, 1_000_000);
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

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
    void aWokenWaiterRunsAsSoonAsARelease() throws Exception {
        ByteBudget budget = new ByteBudget(100);
        budget.acquire(100, false, PARK, () -> { });
        // The check runs under the budget's lock just before the wait, so the release below finds the waiter
        // counted and signals it once it waits; with an hour between re-checks, only that signal can end
        // the wait (the 10 s bound is there only to fail rather than hang).
        CountDownLatch checked = new CountDownLatch(1);
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            try {
                budget.acquireWoken(30, HOUR, checked::countDown);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(checked.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(budget.waits()).isEqualTo(1);
        assertThat(waiting).isNotDone();
        budget.release(100);
        waiting.get(10, TimeUnit.SECONDS);
        assertThat(budget.used()).isEqualTo(30);
    }

    @Test
    void awaitEmptyReturnsOnceTheLastBytesComeBackOrAtItsTimeout() throws Exception {
        ByteBudget budget = new ByteBudget(100);
        assertThat(budget.awaitEmpty(0)).isTrue();
        budget.acquireWoken(60, HOUR, () -> { });
        assertThat(budget.awaitEmpty(1_000)).isFalse();
        CompletableFuture<Boolean> empty = CompletableFuture.supplyAsync(
                () -> budget.awaitEmpty(TimeUnit.SECONDS.toNanos(10)));
        budget.release(60);
        assertThat(empty.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void wakeAllLetsAWaiterGiveUpByItsCheckAndTakeNothing() throws Exception {
        ByteBudget budget = new ByteBudget(100);
        budget.add(100);
        AtomicBoolean closed = new AtomicBoolean();
        CountDownLatch waitedOnce = new CountDownLatch(1);
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            try {
                budget.acquireWoken(10, HOUR, () -> {
                    waitedOnce.countDown();
                    if (closed.get()) {
                        throw new IllegalStateException("closed");
                    }
                });
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waitedOnce.await(10, TimeUnit.SECONDS)).isTrue();
        closed.set(true);
        budget.wakeAll();
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("closed");
        assertThat(budget.used()).isEqualTo(100);
    }

    @Test
    void anInterruptedWokenWaitThrowsAndTakesNothing() {
        ByteBudget budget = new ByteBudget(100);
        budget.add(100);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> budget.acquireWoken(10, HOUR, () -> { })).isInstanceOf(InterruptedException.class);
        assertThat(budget.used()).isEqualTo(100);
    }

    @Test
    void aLimitBelowOneIsRefusedNamingIt() {
        assertThatThrownBy(() -> new ByteBudget(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit=0");
    }
}
