package io.ringbus.core;

import io.ringbus.core.wire.NatsHeaderBlock;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Header filters read an ASCII NATS header block in place; they must decide exactly as they do on
 * the headers {@code Headers} parses from the same block. Checked on hand-made edge cases and on
 * random blocks (fixed seed) built from the characters that matter: CR, LF, spaces, tabs, colons.
 */
class HeaderFilterOnNatsBlocksTest {
    private static final List<String> POLICIES = List.of(
            "{\"a\":[\"eu\"]}",
            "{\"a\":[{\"prefix\":\"e\"}],\"b\":[{\"suffix\":\"1\"}]}",
            "{\"a\":[{\"equals-ignore-case\":\"EU\"}]}",
            "{\"a\":[{\"anything-but\":[\"eu\",\"1\"]}]}",
            "{\"a\":[{\"anything-but\":{\"prefix\":\"e\"}},{\"exists\":false}]}",
            "{\"b\":[{\"numeric\":[\">\",0,\"<=\",10]}]}",
            "{\"b\":[1, true]}",
            "{\"a\":[{\"exists\":true}]}",
            "{\"a\":[{\"exists\":false}]}",
            "{\"b\":[{\"cidr\":\"10.0.0.0/8\"}]}",
            "{\"$or\":[{\"a\":[\"\"]},{\"b\":[\"-1.5e0\"]}]}",
            "{\"A\":[\"eu\"]}",
            "{\"a b\":[{\"exists\":false}]}",
            "{\"a\":[{\"equals-ignore-case\":\"\u212a\"}]}");
    private static final String[] PIECES = {"a", "b", "A", "eu", "EU", "e", "1", "-1.5", "10.0.0.1", "true", " ", "\t",
        ":", ": ", "\r", "\n", "\r\n", "\r\n", "\r\n", "k", "\u007f"};

    @Test
    void edgeCasesDecideAsTheParsedHeaders() {
        String[] blocks = {
            "NATS/1.0\r\na: eu\r\n\r\n",
            "NATS/1.0\r\na:eu\r\nb: 5\r\n\r\n",
            "NATS/1.0 503\r\n\r\n",
            "NATS/1.0",
            "NATS/1.0\r\na: eu",
            "a: eu\r\nb: 1\r\n",
            "NATS/1.0\r\n  a  :  eu  \r\n\r\n",
            "NATS/1.0\r\na b: eu\r\n\r\n",
            "NATS/1.0\r\n: eu\r\na:\r\n\r\n",
            "NATS/1.0\r\na: e\ru\r\na: 1\r\n\r\n",
            "NATS/1.0\r\na: \reu\n\r\n",
            "NATS/1.0\r\na: EU\r\na: eu\r\nb: 10\r\nb: 11\r\n\r\n",
            "NATS/1.0\r\na: k\r\n\r\n",
            "NATS/1.0\r\nb: 10.0.0.1\r\n\r\n",
            "NATS/1.0\r\na:: eu\r\n\r\n",
        };
        for (String block : blocks) {
            assertSameDecisions(block);
        }
    }

    @Test
    void randomBlocksDecideAsTheParsedHeaders() {
        Random random = new Random(18);
        for (int n = 0; n < 3_000; n++) {
            StringBuilder block = new StringBuilder(random.nextBoolean() ? "NATS/1.0\r\n" : "");
            int pieces = random.nextInt(24);
            for (int i = 0; i < pieces; i++) {
                block.append(PIECES[random.nextInt(PIECES.length)]);
            }
            assertSameDecisions(block.toString());
        }
    }

    private static void assertSameDecisions(String text) {
        Headers fromBlock = NatsHeaderBlock.wrap(text.getBytes(StandardCharsets.US_ASCII));
        Headers.Builder parsed = Headers.builder();
        for (String name : NatsHeaderBlock.wrap(text.getBytes(StandardCharsets.US_ASCII)).names()) {
            for (String value : NatsHeaderBlock.wrap(text.getBytes(StandardCharsets.US_ASCII)).all(name)) {
                parsed.add(name, value);
            }
        }
        Message inPlace = Message.of("s", null, fromBlock, null);
        Message viaMap = Message.of("s", null, parsed.build(), null);
        for (String policy : POLICIES) {
            MessageFilter filter = MessageFilter.headers(policy);
            assertThat(filter.test(inPlace)).as("%s on block %s (parsed: %s)", policy, text.replace("\r", "\\r")
                    .replace("\n", "\\n"), viaMap.headers()).isEqualTo(filter.test(viaMap));
        }
    }
}
