package io.ringbus.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Headers: an immutable, ordered, case-sensitive multi-map with NATS-valid names and values. */
class HeadersTest {

    @Test
    void keepsValuesInInsertionOrderPerName() {
        Headers headers = Headers.of("b", "1", "a", "2", "b", "3");
        assertThat(headers.names()).containsExactly("b", "a");
        assertThat(headers.all("b")).containsExactly("1", "3");
        assertThat(headers.first("b")).isEqualTo("1");
        assertThat(headers.first("a")).isEqualTo("2");
        assertThat(headers.isEmpty()).isFalse();
    }

    @Test
    void namesAreCaseSensitive() {
        Headers headers = Headers.of("Trace", "upper", "trace", "lower");
        assertThat(headers.first("Trace")).isEqualTo("upper");
        assertThat(headers.first("trace")).isEqualTo("lower");
        assertThat(headers.first("TRACE")).isNull();
        assertThat(headers.names()).hasSize(2);
    }

    @Test
    void absentNamesGiveNullAndEmpty() {
        Headers headers = Headers.of("a", "1");
        assertThat(headers.first("missing")).isNull();
        assertThat(headers.all("missing")).isEmpty();
    }

    @Test
    void emptyHeadersAreEmpty() {
        assertThat(Headers.EMPTY.isEmpty()).isTrue();
        assertThat(Headers.EMPTY.names()).isEmpty();
        assertThat(Headers.of().isEmpty()).isTrue();
        assertThat(Headers.builder().build()).isEqualTo(Headers.EMPTY);
    }

    @Test
    void valuesMayBeEmptyStrings() {
        assertThat(Headers.of("a", "").first("a")).isEmpty();
    }

    @Test
    void headersAreImmutable() {
        Headers headers = Headers.of("a", "1", "a", "2");
        assertThatThrownBy(() -> headers.all("a").add("3")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> headers.names().add("b")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> headers.names().remove("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> Headers.EMPTY.names().add("b")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(headers.all("a")).containsExactly("1", "2");
    }

    @Test
    void builderChangesAfterBuildDoNotLeakIntoBuiltHeaders() {
        Headers.Builder builder = Headers.builder().add("a", "1");
        Headers built = builder.build();
        builder.add("a", "2").add("b", "3");
        assertThat(built.all("a")).containsExactly("1");
        assertThat(built.names()).containsExactly("a");
        assertThat(builder.build().all("a")).containsExactly("1", "2");
    }

    @Test
    void equalityFollowsContent() {
        assertThat(Headers.of("a", "1", "b", "2")).isEqualTo(Headers.builder().add("a", "1").add("b", "2").build())
                .hasSameHashCodeAs(Headers.of("a", "1", "b", "2"));
        assertThat(Headers.of("a", "1")).isNotEqualTo(Headers.of("a", "2")).isNotEqualTo(Headers.of("A", "1"));
    }

    @Test
    void oddArgumentCountIsRejected() {
        assertThatThrownBy(() -> Headers.of("a", "1", "b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a b", "a:b", "a\tb", "bad\u007f", " lead", "trail "})
    void invalidNamesAreRejectedNamingThem(String name) {
        assertThatThrownBy(() -> Headers.of(name, "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name);
        assertThatThrownBy(() -> Headers.builder().add(name, "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name);
    }

    @Test
    void emptyAndNullNamesAreRejected() {
        assertThatThrownBy(() -> Headers.of("", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Headers.builder().add(null, "v")).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"line\r", "line\nbreak", "\r\n"})
    void valuesWithLineBreaksAreRejectedNamingTheHeader(String value) {
        assertThatThrownBy(() -> Headers.of("name", value))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
    }

    @Test
    void nullValuesAreRejected() {
        assertThatThrownBy(() -> Headers.builder().add("a", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a");
    }

    @Test
    void aRejectedAddLeavesTheBuilderUnchanged() {
        Headers.Builder builder = Headers.builder().add("a", "1");
        assertThatThrownBy(() -> builder.add("a", "bad\n")).isInstanceOf(IllegalArgumentException.class);
        assertThat(builder.build().all("a")).isEqualTo(List.of("1"));
    }
}
