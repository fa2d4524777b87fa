package io.ringbus.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SubscribeOptions: immutable, validated, with the documented defaults. */
class SubscribeOptionsTest {

    private static void assertDefaults(SubscribeOptions options) {
        assertThat(options.mode()).isEqualTo(ExecutionMode.EVENT_LOOP);
        assertThat(options.ordered()).isTrue();
        assertThat(options.maxConcurrency()).isEqualTo(16);
        assertThat(options.bufferSize()).isEqualTo(8_192);
        assertThat(options.overflow()).isEqualTo(OverflowPolicy.BLOCK);
        assertThat(options.queueGroup()).isNull();
        assertThat(options.maxExecuteTime()).isNull();
    }

    @Test
    void defaultsAreAsDocumented() {
        assertDefaults(SubscribeOptions.defaults());
    }

    @Test
    void chainingNeverChangesTheDefaults() {
        SubscribeOptions defaults = SubscribeOptions.defaults();
        SubscribeOptions custom = defaults.mode(ExecutionMode.VIRTUAL).ordered(false).maxConcurrency(3)
                .bufferSize(64).overflow(OverflowPolicy.DROP_OLDEST).queueGroup("g")
                .maxExecuteTime(Duration.ofMillis(5));
        assertDefaults(defaults);
        assertDefaults(SubscribeOptions.defaults());
        assertThat(custom.mode()).isEqualTo(ExecutionMode.VIRTUAL);
        assertThat(custom.ordered()).isFalse();
        assertThat(custom.maxConcurrency()).isEqualTo(3);
        assertThat(custom.bufferSize()).isEqualTo(64);
        assertThat(custom.overflow()).isEqualTo(OverflowPolicy.DROP_OLDEST);
        assertThat(custom.queueGroup()).isEqualTo("g");
        assertThat(custom.maxExecuteTime()).isEqualTo(Duration.ofMillis(5));
    }

    @Test
    void everySetterReturnsANewInstanceAndKeepsTheOtherSettings() {
        SubscribeOptions base = SubscribeOptions.defaults().mode(ExecutionMode.WORKER).queueGroup("g");
        SubscribeOptions changed = base.bufferSize(32);
        assertThat(changed).isNotSameAs(base);
        assertThat(base.bufferSize()).isEqualTo(8_192);
        assertThat(changed.mode()).isEqualTo(ExecutionMode.WORKER);
        assertThat(changed.queueGroup()).isEqualTo("g");
        assertThat(base.mode(ExecutionMode.WORKER)).isNotSameAs(base);
        assertThat(base.ordered(true)).isNotSameAs(base);
        assertThat(base.queueGroup(null).queueGroup()).isNull();
        assertThat(base.queueGroup()).isEqualTo("g");
        assertThat(base.maxExecuteTime(Duration.ofSeconds(1)).maxExecuteTime(null).maxExecuteTime()).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 0, -1, SubscribeOptions.MAX_BUFFER_SIZE + 1})
    void badBufferSizesAreRejectedNamingThem(int size) {
        assertThatThrownBy(() -> SubscribeOptions.defaults().bufferSize(size))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bufferSize=" + size);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, SubscribeOptions.MAX_CONCURRENCY + 1})
    void badConcurrencyLimitsAreRejectedNamingThem(int limit) {
        assertThatThrownBy(() -> SubscribeOptions.defaults().maxConcurrency(limit))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrency=" + limit);
    }

    @Test
    void boundsAreAccepted() {
        assertThat(SubscribeOptions.defaults().bufferSize(2).bufferSize()).isEqualTo(2);
        assertThat(SubscribeOptions.defaults().bufferSize(SubscribeOptions.MAX_BUFFER_SIZE).bufferSize())
                .isEqualTo(SubscribeOptions.MAX_BUFFER_SIZE);
        assertThat(SubscribeOptions.defaults().maxConcurrency(1).maxConcurrency()).isEqualTo(1);
        assertThat(SubscribeOptions.defaults().maxConcurrency(SubscribeOptions.MAX_CONCURRENCY).maxConcurrency())
                .isEqualTo(SubscribeOptions.MAX_CONCURRENCY);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a b", "a\tb", " ", "a\nb"})
    void badQueueGroupsAreRejectedNamingThem(String group) {
        assertThatThrownBy(() -> SubscribeOptions.defaults().queueGroup(group))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + group + "'");
    }

    @Test
    void queueGroupNamesMayContainDotsAsInNats() {
        assertThat(SubscribeOptions.defaults().queueGroup("billing.eu").queueGroup()).isEqualTo("billing.eu");
    }

    @Test
    void nonPositiveExecuteTimesAreRejected() {
        assertThatThrownBy(() -> SubscribeOptions.defaults().maxExecuteTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxExecuteTime");
        assertThatThrownBy(() -> SubscribeOptions.defaults().maxExecuteTime(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxExecuteTime");
    }

    @Test
    void nullModeAndPolicyAreRejected() {
        assertThatThrownBy(() -> SubscribeOptions.defaults().mode(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> SubscribeOptions.defaults().overflow(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void toStringShowsEverySetting() {
        String text = SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL).queueGroup("grp").toString();
        assertThat(text).contains("VIRTUAL", "grp", "8192", "BLOCK");
    }
}
