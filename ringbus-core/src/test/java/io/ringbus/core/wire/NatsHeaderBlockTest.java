package io.ringbus.core.wire;

import io.ringbus.core.Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The NATS header block codec: wrapped blocks kept byte for byte, strict parsing, encoding, status lines. */
class NatsHeaderBlockTest {

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void encodedHeadersParseBackToTheSameHeaders() {
        Headers headers = Headers.of("b", "1", "a", "x y", "b", "3", "Nats-Msg-Id", "\u00e9t\u00e9");
        byte[] block = NatsHeaderBlock.encode(headers);
        assertThat(new String(block, StandardCharsets.UTF_8))
                .isEqualTo("NATS/1.0\r\nb: 1\r\nb: 3\r\na: x y\r\nNats-Msg-Id: \u00e9t\u00e9\r\n\r\n");
        Headers back = NatsHeaderBlock.parse(block);
        assertThat(back).isEqualTo(headers);
        assertThat(back.natsBlock()).isSameAs(block);
        assertThat(NatsHeaderBlock.encode(Headers.EMPTY)).isEqualTo(ascii("NATS/1.0\r\n\r\n"));
    }

    @Test
    void aWrappedBlockIsForwardedByteForByte() {
        // Odd spacing, a status with a description, a line that is no header, no final empty line.
        for (String text : List.of("NATS/1.0   503  No Responders \r\n\r\n", "NATS/1.0\r\n  A :  1  \r\nB:2\r\n\r\n",
                "NATS/1.0\r\nnot a header\r\nC: 3\r\n\r\n", "NATS/1.0\r\nA: 1", "garbage")) {
            byte[] block = ascii(text);
            Headers headers = NatsHeaderBlock.wrap(block);
            assertThat(headers.natsBlock()).isSameAs(block);
            assertThat(NatsHeaderBlock.encode(headers)).as(text).isSameAs(block);
            assertThat(headers.toNatsBlock()).isSameAs(block);
        }
        Headers spaced = NatsHeaderBlock.wrap(ascii("NATS/1.0\r\n  A :  1  \r\nnot a header\r\nB:2\r\n\r\n"));
        assertThat(spaced).isEqualTo(Headers.of("A", "1", "B", "2"));
        assertThatThrownBy(() -> NatsHeaderBlock.wrap(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
    }

    @Test
    void statusIsReadFromTheVersionLineAndWritten() {
        assertThat(NatsHeaderBlock.status(ascii("NATS/1.0 503\r\n\r\n"))).isEqualTo("503");
        assertThat(NatsHeaderBlock.status(ascii("NATS/1.0   408  Request Timeout\r\n\r\n"))).isEqualTo("408");
        assertThat(NatsHeaderBlock.status(ascii("NATS/1.0\r\nA: 1\r\n\r\n"))).isNull();
        assertThat(NatsHeaderBlock.status(ascii("HTTP/1.1 200\r\n\r\n"))).isNull();
        assertThat(NatsHeaderBlock.status(null)).isNull();
        assertThat(NatsHeaderBlock.wrap(ascii("NATS/1.0 100 Idle Heartbeat\r\n\r\n")).status()).isEqualTo("100");

        byte[] heartbeat = NatsHeaderBlock.statusBlock("100 Idle Heartbeat", HeaderNames.LAST_CONSUMER, "7",
                HeaderNames.LAST_STREAM, "9");
        assertThat(new String(heartbeat, StandardCharsets.US_ASCII))
                .isEqualTo("NATS/1.0 100 Idle Heartbeat\r\nNats-Last-Consumer: 7\r\nNats-Last-Stream: 9\r\n\r\n");
        Headers parsed = NatsHeaderBlock.parse(heartbeat);
        assertThat(parsed.status()).isEqualTo("100");
        assertThat(parsed.first(HeaderNames.LAST_STREAM)).isEqualTo("9");
        assertThat(NatsHeaderBlock.encode(Headers.of("A", "1"), "503"))
                .isEqualTo(ascii("NATS/1.0 503\r\nA: 1\r\n\r\n"));
    }

    @Test
    void appendKeepsTheBlocksBytesAndAddsLines() {
        byte[] own = ascii("NATS/1.0\r\n  odd :  spacing\r\n\r\n");
        assertThat(new String(NatsHeaderBlock.append(own, HeaderNames.MSG_SIZE, "12"), StandardCharsets.US_ASCII))
                .isEqualTo("NATS/1.0\r\n  odd :  spacing\r\nNats-Msg-Size: 12\r\n\r\n");
        assertThat(new String(NatsHeaderBlock.append(null, HeaderNames.STREAM, "S", HeaderNames.SEQUENCE, "3"),
                StandardCharsets.US_ASCII)).isEqualTo("NATS/1.0\r\nNats-Stream: S\r\nNats-Sequence: 3\r\n\r\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"HTTP/1.1\r\n\r\n", "NATS/1.0\r\nA: 1\r\n", "NATS/1.0 50\r\n\r\n", "NATS/1.0 5033\r\n\r\n",
            "NATS/1.0x\r\n\r\n", "NATS/1.0\r\nno colon\r\n\r\n", "NATS/1.0\r\n: empty name\r\n\r\n",
            "NATS/1.0\r\nA B: 1\r\n\r\n", "NATS/1.0\r\nA: 1\nB: 2\r\n\r\n", "NATS/1.0\r\n\r\n\r\n", ""})
    void parseRefusesABlockOffTheGrammarNamingIt(String text) {
        String shown = text.replace("\r", "\\r").replace("\n", "\\n");
        assertThatThrownBy(() -> NatsHeaderBlock.parse(ascii(text))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("NATS header block ").hasMessageContaining("'" + shown + "'");
    }

    @Test
    void aRefusedLongBlockIsQuotedCut() {
        String value = "v".repeat(500);
        assertThatThrownBy(() -> NatsHeaderBlock.parse(ascii("NATS/1.0\r\nbad line " + value + "\r\n\r\n")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'bad line vvv")
                .message().hasSizeLessThan(4 * NatsHeaderBlock.MAX_QUOTED);
    }

    /**
     * {@code first} reads a NATS block without parsing all of it (the store's Nats-Msg-Id lookup):
     * it must give what the parsed headers give, for odd blocks too (spacing, lone CR/LF, invalid
     * names, repeated names, a missing final CRLF, a colon in the value).
     */
    @Test
    void firstFromANatsBlockAgreesWithTheParsedHeaders() {
        Random random = new Random(26);
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
            byte[] bytes = block.toString().getBytes(StandardCharsets.UTF_8);
            for (String name : List.of("Nats-Msg-Id", "A", "nats-msg-id")) {
                String parsed = NatsHeaderBlock.wrap(bytes).all(name).stream().findFirst().orElse(null);
                assertThat(NatsHeaderBlock.wrap(bytes).first(name)).as("%s in %s", name, block).isEqualTo(parsed);
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
            byte[] bytes = block.getBytes(StandardCharsets.US_ASCII);
            boolean parsed = NatsHeaderBlock.wrap(bytes).names().isEmpty();
            assertThat(NatsHeaderBlock.wrap(bytes).isEmpty()).as("%s", block).isEqualTo(parsed);
        }
        assertThat(NatsHeaderBlock.wrap("NATS/1.0\r\nA: 1\r\n\r\n".getBytes(StandardCharsets.US_ASCII))
                .isEmpty()).isFalse();
    }
}
