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

    /**
     * {@code first} reads a NATS block without parsing all of it (the store's Nats-Msg-Id lookup):
     * it must give what the parsed headers give, for odd blocks too (spacing, lone CR/LF, invalid
     * names, repeated names, a missing final CRLF, a colon in the value).
     */
    @Test
    void firstFromANatsBlockAgreesWithTheParsedHeaders() {
        java.util.Random random = new java.util.Random(26);
        String[] pieces = {"Nats-Msg-Id", " Nats-Msg-Id ", "nats-msg-id", "Nats-Msg-Id x", "A", ":", ": ", " ", "\r",
                "\n", "\r\n", "id-1", "v:w", "\u00e9", "\t", "Nats-Msg-Id:", "NATS/1.0 503"};
        for (int round = 0; round < 20_000; round++) {
            StringBuilder block = new StringBuilder(random.nextBoolean() ? "NATS/1.0\r\n" : "");
            for (int p = random.nextInt(12); p > 0; p--) {
                block.append(pieces[random.nextInt(pieces.length)]);
            }
            if (random.nextBoolean()) {
                block.append("\r\n\r\n");
            }
            byte[] bytes = block.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            for (String name : List.of("Nats-Msg-Id", "A", "nats-msg-id")) {
                String parsed = Headers.fromNatsBlock(bytes).all(name).stream().findFirst().orElse(null);
                assertThat(Headers.fromNatsBlock(bytes).first(name)).as("%s in %s", name, block).isEqualTo(parsed);
            }
        }
    }

    /** isEmpty answers a NATS block without parsing it: the same as the parsed names say. */
    @Test
    void isEmptyOfABlockAgreesWithItsParsedNames() {
        String[] blocks = {"NATS/1.0\r\n\r\n", "NATS/1.0 503\r\n\r\n", "NATS/1.0\r\nA: 1\r\n\r\n",
                "NATS/1.0\r\n: x\r\n\r\n", "NATS/1.0\r\n  : x\r\nB:2\r\n\r\n", "NATS/1.0\r\nno colon\r\n\r\n",
                "NATS/1.0\r\nA B: 1\r\n\r\n", "NATS/1.0\r\nA: 1\rx\r\n\r\n", "NATS/1.0\r\nA: 1\nx\r\n\r\n",
                "NATS/1.0\r\n A : \r\n\r\n", "NATS/1.0", "NATS/1.0\r\nA:1", "NATS/1.0\r\n\u0001:1\r\n\r\n",
                "NATS/1.0\r\nA\u007f: 1\r\n\r\n", "NATS/1.0\r\nbad line\r\nGood: yes\r\n\r\n", "",
                "NATS/1.0\r\nNats-Msg-Id: 12\r\n\r\n"};
        for (String block : blocks) {
            byte[] bytes = block.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            boolean parsed = Headers.fromNatsBlock(bytes).names().isEmpty();
            assertThat(Headers.fromNatsBlock(bytes).isEmpty()).as("%s", block).isEqualTo(parsed);
        }
        assertThat(Headers.fromNatsBlock("NATS/1.0\r\nA: 1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                .isEmpty()).isFalse();
    }
}
