package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Token splitting (eight octets at a time) and the subject cache, at every alignment. */
class NatsParserTokenTest {

    private static ByteBuf buf(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    @Test
    void splitsAtSpaceOrTabAtEveryOffsetWithinAWord() {
        for (int length = 1; length <= 40; length++) {
            for (String sep : new String[] {" ", "\t", " \t ", "\t\t"}) {
                String subject = "s".repeat(length);
                String reply = "r" + "x".repeat(length % 11);
                NatsParserTest.Recorder recorder = new NatsParserTest.Recorder();
                NatsParser parser = new NatsParser(4096, 1024);
                parser.parse(buf("PUB" + sep + subject + sep + reply + sep + "2\r\nhi\r\n"
                        + "PUB " + subject + sep + "3" + sep + "\r\nabc\r\n"), recorder);
                assertThat(recorder.events).as("length %d, sep '%s'", length, sep)
                        .containsExactly("PUB " + subject + " " + reply + " [hi]", "PUB " + subject + " null [abc]");
            }
        }
    }

    @Test
    void keepsNonAsciiAndHighBitOctetsInsideTokens() {
        NatsParserTest.Recorder recorder = new NatsParserTest.Recorder();
        NatsParser parser = new NatsParser(4096, 1024);
        // 0xA0 and 0x89 differ from SP and HTAB only in the high bit.
        parser.parse(buf("PUB caf\u00e9.\u00a0\u0109.sub\u00e9ct.l\u00f6ng 1\r\nx\r\n"), recorder);
        assertThat(recorder.events).containsExactly("PUB caf\u00e9.\u00a0\u0109.sub\u00e9ct.l\u00f6ng null [x]");
    }

    @Test
    void subjectCacheTellsApartSubjectsOfOneLengthAndPrefixes() {
        NatsParserTest.Recorder recorder = new NatsParserTest.Recorder();
        NatsParser parser = new NatsParser(4096, 1024);
        StringBuilder input = new StringBuilder();
        String[] subjects = {"orders.eu", "orders.us", "orders.eu", "orders.e", "orders.eu.x", "orders.eu"};
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 100; i++) {
                input.append("PUB s").append(i).append(" 0\r\n\r\n");
            }
            for (String subject : subjects) {
                input.append("PUB ").append(subject).append(" 0\r\n\r\n");
            }
        }
        parser.parse(buf(input.toString()), recorder);
        assertThat(recorder.events).hasSize(3 * (100 + subjects.length));
        for (int round = 0; round < 3; round++) {
            int base = round * (100 + subjects.length);
            for (int i = 0; i < 100; i++) {
                assertThat(recorder.events.get(base + i)).isEqualTo("PUB s" + i + " null []");
            }
            for (int k = 0; k < subjects.length; k++) {
                assertThat(recorder.events.get(base + 100 + k)).isEqualTo("PUB " + subjects[k] + " null []");
            }
        }
    }
}
