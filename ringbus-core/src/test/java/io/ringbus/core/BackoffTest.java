package io.ringbus.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void doublesFromInitialUpToMax() {
        Backoff backoff = new Backoff(100, 5_000);
        List<Long> waits = new ArrayList<>();
        long wait = backoff.initial();
        for (int i = 0; i < 9; i++) {
            waits.add(wait);
            wait = backoff.next(wait);
        }
        assertThat(waits).containsExactly(100L, 200L, 400L, 800L, 1_600L, 3_200L, 5_000L, 5_000L, 5_000L);
    }

    @Test
    void matchesDoublingCappedAtMaxForEveryWait() {
        // The loops it replaced computed Math.min(current * 2, max); odd maxima included.
        for (long max : new long[] {1, 2, 5, 7, 50_000, 100_001, 5_000_000}) {
            Backoff backoff = new Backoff(1, max);
            for (long current = 1; current <= Math.min(max, 200_000); current++) {
                assertThat(backoff.next(current)).as("max=%d current=%d", max, current)
                        .isEqualTo(Math.min(current * 2, max));
            }
        }
    }

    @Test
    void neverOverflowsNearLongMax() {
        Backoff backoff = new Backoff(1, Long.MAX_VALUE);
        assertThat(backoff.next(Long.MAX_VALUE / 2)).isEqualTo(Long.MAX_VALUE - 1);
        assertThat(backoff.next(Long.MAX_VALUE / 2 + 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(backoff.next(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aBackoffWhoseMaxIsItsInitialWaitsTheSameEachTime() {
        Backoff fixed = new Backoff(10, 10);
        assertThat(fixed.next(fixed.initial())).isEqualTo(10);
    }

    @Test
    void refusesBadBoundsNamingTheValues() {
        assertThatThrownBy(() -> new Backoff(0, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("initial=0");
        assertThatThrownBy(() -> new Backoff(-5, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("initial=-5");
        assertThatThrownBy(() -> new Backoff(100, 99)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max=99").hasMessageContaining("initial=100");
    }
}
