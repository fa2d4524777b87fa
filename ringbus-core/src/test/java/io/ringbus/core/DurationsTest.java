package io.ringbus.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @Test
    void readsTheServerConfigFileForms() {
        // What ConfigFile read before it delegated here: (\d+)(ms|s|m|h), trimmed, any case.
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse(" 30S ")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("10MS")).isEqualTo(Duration.ofMillis(10));
        assertThat(Durations.parse("0s")).isEqualTo(Duration.ZERO);
    }

    @Test
    void readsTheOutboxCommandLineForms() {
        // What the outbox DurationConverter read: \d{1,12}(ms|s|m|h) or ISO-8601.
        assertThat(Durations.parse("100ms")).isEqualTo(Duration.ofMillis(100));
        assertThat(Durations.parse("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Durations.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(Durations.parse("3h")).isEqualTo(Duration.ofHours(3));
        assertThat(Durations.parse("999999999999ms")).isEqualTo(Duration.ofMillis(999_999_999_999L));
        assertThat(Durations.parse("PT0.5S")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("P1D")).isEqualTo(Duration.ofDays(1));
        assertThat(Durations.parse("-PT5S")).isEqualTo(Duration.ofSeconds(-5));
    }

    @Test
    void readsTheBenchCommandLineForms() {
        // What the bench HumanDurationConverter read: ns|us|ms|s|m|min, or pt... in any case.
        assertThat(Durations.parse("250ns")).isEqualTo(Duration.ofNanos(250));
        assertThat(Durations.parse("500us")).isEqualTo(Duration.ofNanos(500_000));
        assertThat(Durations.parse("30ms")).isEqualTo(Duration.ofMillis(30));
        assertThat(Durations.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("3m")).isEqualTo(Duration.ofMinutes(3));
        assertThat(Durations.parse("3min")).isEqualTo(Duration.ofMinutes(3));
        assertThat(Durations.parse("10MIN")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Durations.parse("pt10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "soon", "ms", "5", "5 s", "5sec", "1.5s", "-5s", "5d", "5hours", "PT", "P",
        "99999999999999999999s", "9223372036854775807us", "9223372036854775807h"})
    void refusesWhatIsNotInTheGrammarNamingTheValue(String value) {
        assertThatThrownBy(() -> Durations.parse(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a duration")
                .hasMessageContaining("duration='" + value + "'");
    }

    @Test
    void refusesNull() {
        assertThatThrownBy(() -> Durations.parse(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duration must not be null");
    }

    @Test
    void formatsInTheLargestExactUnit() {
        assertThat(Durations.format(Duration.ofMinutes(3))).isEqualTo("3m");
        assertThat(Durations.format(Duration.ofHours(2))).isEqualTo("120m");
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Durations.format(Duration.ofMillis(30))).isEqualTo("30ms");
        assertThat(Durations.format(Duration.ofMillis(1_500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ofNanos(500_000))).isEqualTo("500us");
        assertThat(Durations.format(Duration.ofNanos(1_001))).isEqualTo("1001ns");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0ms");
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 999, 1_000, 1_000_000, 1_500_000_000L, 60_000_000_000L, 3_600_000_000_123L})
    void parseReadsWhatFormatWrites(long nanos) {
        Duration duration = Duration.ofNanos(nanos);
        assertThat(Durations.parse(Durations.format(duration))).isEqualTo(duration);
    }
}
