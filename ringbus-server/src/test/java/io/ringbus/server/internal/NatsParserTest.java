package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NatsParserTest {

    /** Records callbacks as strings; payloads as ISO-8859-1 so every byte shows. Can refuse. */
    static class Recorder implements ProtocolHandler {
        final List<String> events = new ArrayList<>();
        final List<String> details = new ArrayList<>();
        Predicate<String> refuse = event -> false;
        int refused;

        @Override
        public boolean onConnect(String json) {
            events.add("CONNECT " + json);
            return true;
        }

        @Override
        public boolean onPub(String subject, String replyTo, ByteBuf input, int payloadAt, int payloadLength) {
                ByteBuf payload = input.slice(payloadAt, payloadLength);
            return offer("PUB " + subject + " " + replyTo + " [" + latin1(payload) + "]");
        }

        @Override
        public boolean onHpub(String subject, String replyTo, ByteBuf input, int headersAt, int headersLength,
                                int payloadLength) {
                ByteBuf headers = input.slice(headersAt, headersLength);
                ByteBuf payload = input.slice(headersAt + headersLength, payloadLength);
            return offer("HPUB " + subject + " " + replyTo + " [" + latin1(headers) + "] [" + latin1(payload) + "]");
        }

        private boolean offer(String event) {
            if (refuse.test(event)) {
                refused++;
                return false;
            }
            events.add(event);
            return true;
        }

        @Override
        public void onSub(String subject, String queueGroup, String sid) {
            events.add("SUB " + subject + " " + queueGroup + " " + sid);
        }

        @Override
        public void onUnsub(String sid, long maxMessages) {
            events.add("UNSUB " + sid + " " + maxMessages);
        }

        @Override
        public void onPing() {
            events.add("PING");
        }

        @Override
        public void onPong() {
            events.add("PONG");
        }

        @Override
        public void onError(ProtocolError error, String detail) {
            events.add("ERR " + error);
            details.add(detail);
        }

        static String latin1(ByteBuf b) {
            return b.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static ByteBuf buf(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    private static List<String> parseAll(String stream) {
        return parseAll(new NatsParser(ServerConfig.MAX_CONTROL_LINE, ServerConfig.DEFAULT_MAX_PAYLOAD), stream);
    }

    private static List<String> parseAll(NatsParser parser, String stream) {
        Recorder r = new Recorder();
        ByteBuf in = buf(stream);
        parser.parse(in, r);
        if (!parser.isClosed()) {
            assertThat(in.readableBytes()).as("complete stream fully consumed").isZero();
        }
        return r.events;
    }

    /** Feeds {@code stream} in two chunks split at {@code split}, as a cumulating decoder would. */
    private static List<String> parseSplit(String stream, int split, boolean compact) {
        NatsParser parser = new NatsParser(64, 32);
        Recorder r = new Recorder();
        byte[] bytes = stream.getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf in = Unpooled.buffer();
        in.writeBytes(bytes, 0, split);
        parser.parse(in, r);
        if (parser.isClosed()) {
            return r.events;
        }
        if (compact) {
            in.discardReadBytes();
        }
        in.writeBytes(bytes, split, bytes.length - split);
        parser.parse(in, r);
        return r.events;
    }

    @Test
    void parsesEveryOperation() {
        assertThat(parseAll("CONNECT {\"verbose\":false}\r\n"
            + "PUB foo 5\r\nhello\r\n"
            + "PUB foo reply.to 3\r\nabc\r\n"
            + "HPUB h.s 12 14\r\nNATS/1.0\r\n\r\nhi\r\n"
            + "HPUB h.s r 12 12\r\nNATS/1.0\r\n\r\n\r\n"
            + "SUB a.* 1\r\nSUB a.> q 2\r\n"
            + "UNSUB 1\r\nUNSUB 2 10\r\n"
            + "PING\r\nPONG\r\n"))
            .containsExactly(
                "CONNECT {\"verbose\":false}",
                "PUB foo null [hello]",
                "PUB foo reply.to [abc]",
                "HPUB h.s null [NATS/1.0\r\n\r\n] [hi]",
                "HPUB h.s r [NATS/1.0\r\n\r\n] []",
                "SUB a.* null 1", "SUB a.> q 2",
                "UNSUB 1 -1", "UNSUB 2 10",
                "PING", "PONG");
    }

    @Test
    void payloadMayContainAnyBytesIncludingCrlfAndVerbs() {
        assertThat(parseAll("PUB x 15\r\nPING\r\nPUB x 1\r\n\r\nPUB x 0\r\n\r\n"))
            .containsExactly("PUB x null [PING\r\nPUB x 1\r\n]", "PUB x null []");
    }

    @Test
    void acceptsBareLfLineEndsButNotAfterPayload() {
        assertThat(parseAll("PING\nSUB a 1\nPUB a 2\nhi\r\nCONNECT {}\n"))
            .containsExactly("PING", "SUB a null 1", "PUB a null [hi]", "CONNECT {}");
        assertThat(parseAll("PUB a 2\r\nhi\nPING\r\n")).containsExactly("ERR PARSER_ERROR");
    }

    @Test
    void verbsAreCaseInsensitive() {
        assertThat(parseAll("pub a 1\r\nx\r\nPuB a 1\r\ny\r\nhPuB a 8 8\r\nNATS/1.0\r\nsub a 1\r\nuNsUb 1\r\n"
            + "ping\r\nPoNg\r\nconnect {}\r\n+ok\r\n"))
            .containsExactly("PUB a null [x]", "PUB a null [y]", "HPUB a null [NATS/1.0] []", "SUB a null 1",
                "UNSUB 1 -1", "PING", "PONG", "CONNECT {}");
    }

    @Test
    void fieldsAreSeparatedByRunsOfSpacesAndTabs() {
        assertThat(parseAll("PUB\tfoo \t bar\t\t2 \t\r\nhi\r\nSUB\t\ta  q\t3\r\nUNSUB \t 3\t 5 \r\n"
            + "HPUB\ts\t8 \t 9\t\r\nNATS/1.0x\r\nCONNECT \t {\"a\": 1}\r\nPING \r\nPONG\t\r\n"))
            .containsExactly("PUB foo bar [hi]", "SUB a q 3", "UNSUB 3 5", "HPUB s null [NATS/1.0] [x]",
                "CONNECT {\"a\": 1}", "PING", "PONG");
    }

    @Test
    void ignoresPlusOkAndTheRestOfPingAndPongLines() {
        assertThat(parseAll("+OK\r\n+OK whatever\r\nPING x y\r\nPONG\tz\r\n")).containsExactly("PING", "PONG");
    }

    @Test
    void connectWithoutJsonPassesEmptyTextForTheConnectionToReject() {
        assertThat(parseAll("CONNECT\r\nCONNECT \r\n")).containsExactly("CONNECT ", "CONNECT ");
    }

    @Test
    void decodesTokensAsUtf8() {
        assertThat(parseAll("SUB caf\u00c3\u00a9 1\r\n")).containsExactly("SUB caf\u00e9 null 1");
    }

    @Test
    void pipelinedOperationsAreAllConsumedInOneCall() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            sb.append("PUB s").append(i % 7).append(" 2\r\n").append(i % 100 < 10 ? "0" : "").append(i % 100).append("\r\n");
        }
        List<String> events = parseAll(sb.toString());
        assertThat(events).hasSize(1000);
        assertThat(events.get(999)).isEqualTo("PUB s5 null [99]");
        assertThat(events.get(3)).isEqualTo("PUB s3 null [03]");
    }

    @Test
    void leavesAPartialOperationUnconsumedAtItsStart() {
        NatsParser parser = new NatsParser(4096, 1024);
        Recorder r = new Recorder();
        ByteBuf in = buf("PING\r\nPUB foo 5\r\nhel");
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING");
        assertThat(in.readerIndex()).isEqualTo(6);
        in.writeBytes(buf("lo\r"));
        parser.parse(in, r);
        assertThat(in.readerIndex()).isEqualTo(6);
        in.writeBytes(buf("\nPO"));
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING", "PUB foo null [hello]");
        assertThat(in.readableBytes()).isEqualTo(2);
        in.writeBytes(buf("NG\r\n"));
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING", "PUB foo null [hello]", "PONG");
        assertThat(in.isReadable()).isFalse();
    }

    @Test
    void sameCallbacksWhateverTheSplitPoint() {
        String[] streams = {
            "CONNECT {\"verbose\":false,\"name\":\"x\"}\r\nPUB foo 5\r\nhello\r\nPUB foo r.1 0\r\n\r\n"
                + "HPUB h r 12 14\r\nNATS/1.0\r\n\r\nhi\r\nSUB a.* q 1\r\nUNSUB 1 7\r\nPING\r\nPONG\r\n+OK\r\n",
            "pub\tfoo  3\nabc\r\nsub a 1\nping\npong\n",
            "PUB foo 6\r\nhello\r\n",                 // payload longer than announced
            "PUB foo 33\r\n",                         // above max payload (32)
            "HPUB foo 12 9\r\n",                      // header size > total
            "HPUB foo 8 9\r\nNATS/1.1x\r\n",          // bad header version
            "PING\r\nSUB " + "x".repeat(70) + " 1\r\n", // control line > 64
            "PING\r\nPUB foo 4x\r\n",
            "PING\r\nPUB foo 99999999999999999999\r\n",
            "PONG\r\nFOO bar\r\n",
            "PINGX\r\n",
            "PING\r\n\r\nPING\r\n",
            "-ERR 'oops'\r\nPING\r\n",
            "PING\rX\r\n",
        };
        for (String stream : streams) {
            List<String> whole = parseSplit(stream, stream.length(), false);
            assertThat(whole).as("stream %s", stream).isNotEmpty();
            for (int split = 0; split <= stream.length(); split++) {
                assertThat(parseSplit(stream, split, false)).as("split %d of %s", split, stream).isEqualTo(whole);
                assertThat(parseSplit(stream, split, true)).as("compacted split %d of %s", split, stream).isEqualTo(whole);
            }
        }
    }

    @Test
    void sameCallbacksWhenFedOneByteAtATime() {
        String stream = "CONNECT {}\r\nHPUB h r 12 14\r\nNATS/1.0\r\n\r\nhi\r\nPUB a 3\r\nabc\r\nSUB a 1\r\nPING\r\n";
        NatsParser parser = new NatsParser(4096, 1024);
        Recorder r = new Recorder();
        ByteBuf in = Unpooled.buffer();
        for (byte b : stream.getBytes(StandardCharsets.ISO_8859_1)) {
            in.writeByte(b);
            parser.parse(in, r);
        }
        assertThat(r.events).isEqualTo(parseAll(stream));
        assertThat(in.isReadable()).isFalse();
    }

    @Test
    void refusedPublishIsRewoundAndDecodedAgainByTheNextCall() {
        NatsParser parser = new NatsParser(4096, 1024);
        Recorder r = new Recorder();
        ByteBuf in = buf("PING\r\nPUB a 1\r\nx\r\nHPUB b 8 9\r\nNATS/1.0y\r\nPONG\r\n");
        r.refuse = event -> event.startsWith("PUB");
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING");
        assertThat(in.readerIndex()).isEqualTo(6);
        r.refuse = event -> event.startsWith("HPUB");
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING", "PUB a null [x]");
        assertThat(in.readerIndex()).isEqualTo(18);
        r.refuse = event -> false;
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING", "PUB a null [x]", "HPUB b null [NATS/1.0] [y]", "PONG");
        assertThat(r.refused).isEqualTo(2);
        assertThat(in.isReadable()).isFalse();
    }

    @Test
    void readerIndexIsAtTheOperationStartDuringCallbacks() {
        NatsParser parser = new NatsParser(4096, 1024);
        ByteBuf in = buf("PING\r\nPUB a 1\r\nx\r\n");
        List<Integer> seen = new ArrayList<>();
        parser.parse(in, new Recorder() {
            @Override
            public void onPing() {
                seen.add(in.readerIndex());
            }

            @Override
            public boolean onPub(String subject, String replyTo, ByteBuf input, int payloadAt, int payloadLength) {
                ByteBuf payload = input.slice(payloadAt, payloadLength);
                seen.add(in.readerIndex());
                return true;
            }
        });
        assertThat(seen).containsExactly(0, 6);
    }

    @Test
    void payloadAndHeadersAreSlicesOfTheInputNotCopies() {
        NatsParser parser = new NatsParser(4096, 1024);
        ByteBuf in = Unpooled.directBuffer().writeBytes(buf("HPUB s 8 9\r\nNATS/1.0y\r\nPUB s 1\r\nx\r\n"));
        List<String> seen = new ArrayList<>();
        parser.parse(in, new Recorder() {
            @Override
            public boolean onPub(String subject, String replyTo, ByteBuf input, int payloadAt, int payloadLength) {
                ByteBuf payload = input.slice(payloadAt, payloadLength);
                in.setByte(in.readerIndex() + 9, 'z');
                seen.add(latin1(payload));
                return true;
            }

            @Override
            public boolean onHpub(String subject, String replyTo, ByteBuf input, int headersAt, int headersLength,
                                int payloadLength) {
                ByteBuf headers = input.slice(headersAt, headersLength);
                ByteBuf payload = input.slice(headersAt + headersLength, payloadLength);
                in.setByte(in.readerIndex() + 12, 'M');
                in.setByte(in.readerIndex() + 20, 'Y');
                seen.add(latin1(headers) + "|" + latin1(payload));
                return true;
            }
        });
        assertThat(seen).containsExactly("MATS/1.0|Y", "z");
        in.release();
    }

    @Test
    void subjectsAreDecodedCorrectlyThroughTheSubjectCache() {
        StringBuilder sb = new StringBuilder();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            String subject = "s." + (i * 7919 % 97) + (i % 5 == 0 ? ".x" : "") + (i % 11 == 0 ? ".y".repeat(80) : "");
            sb.append("PUB ").append(subject).append(" 0\r\n\r\n");
            expected.add("PUB " + subject + " null []");
        }
        assertThat(parseAll(sb.toString())).isEqualTo(expected);
    }

    @Test
    void unknownOperationsClose() {
        for (String s : new String[] {"FOO\r\n", "\r\n", "\n", " PING\r\n", "PUBX a 1\r\n",
            "MSG a 1 1\r\nx\r\n", "CONNECT{}\r\n", "HPUB\u0000", "X"}) {
            assertThat(parseAll(s)).as(s).containsExactly("ERR UNKNOWN_OPERATION");
        }
        for (String prefix : new String[] {"P", "PIN", "PING\r", "unsu", "+O", "-ER", "CONNECT"}) {
            Recorder r = new Recorder();
            ByteBuf in = buf(prefix);
            new NatsParser(4096, 1024).parse(in, r);
            assertThat(r.events).as("%s may still become a verb", prefix).isEmpty();
            assertThat(in.readerIndex()).isZero();
        }
    }

    @Test
    void badArgumentsAreParserErrors() {
        for (String s : new String[] {
            "PUB\r\n", "PUB foo\r\n", "PUB a b c 1\r\n", "PUB foo bar\r\n", "PUB foo -1\r\n", "PUB foo +1\r\n",
            "PUB foo 1x\r\n", "PUB foo 0000000001\r\n", "PUB foo 99999999999999999999\r\n",
            "PUB foo 18446744073709551617\r\n", "PUB foo 4294967297\r\n",
            "HPUB foo 12\r\n", "HPUB a b c 12 12 x\r\n", "HPUB foo x 12\r\n", "HPUB foo 12 -1\r\n",
            "HPUB foo 13 12\r\n",
            "PUB foo 3\r\nabcd\r\n", "PUB foo 3\r\nabc\n", "PUB foo 3\r\nab\r\n\r\n",
            "SUB\r\n", "SUB foo\r\n", "SUB a b c d\r\n", "UNSUB\r\n", "UNSUB 1 2 3\r\n", "-ERR 'Authorization Violation'\r\n", "-err\r\n"}) {
            assertThat(parseAll(s)).as(s).containsExactly("ERR PARSER_ERROR");
        }
    }

    @Test
    void acceptsWhatNatsServerAccepts() {
        // Header blocks are forwarded as they are, whatever they hold (nats-server checks nothing more).
        assertThat(parseAll("HPUB foo 0 0\r\n\r\n")).doesNotContain("ERR PARSER_ERROR").hasSize(1);
        assertThat(parseAll("HPUB foo 8 8\r\nnats/1.0\r\n")).doesNotContain("ERR PARSER_ERROR").hasSize(1);
        assertThat(parseAll("HPUB foo 5 7\r\nFOO\r\nhi\r\n")).doesNotContain("ERR PARSER_ERROR").hasSize(1);
        // An UNSUB max that is no number unsubscribes at once (-1), as nats-server parses it.
        // So does one of more than 9 digits (nats-server's parseSize), leading zeros counted.
        for (String max : new String[] {"x", "-1", "9999999999999999999", "1000000000", "2147483647", "0000000002"}) {
            assertThat(parseAll("UNSUB 1 " + max + "\r\n")).as(max).containsExactly("UNSUB 1 -1");
        }
        // PING and PONG are read to the end of the line; a client's INFO is ignored.
        assertThat(parseAll("PINGX\r\nPONGPONG\r\nINFO {}\r\n")).containsExactly("PING", "PONG");
    }

    @Test
    void acceptsLargestNumbersThatFit() {
        NatsParser parser = new NatsParser(64, NatsParser.MAX_SIZE);
        assertThat(parseAll(parser, "UNSUB 1 999999999\r\nPUB a 000000000\r\n\r\n"))
            .containsExactly("UNSUB 1 999999999", "PUB a null []");
    }

    @Test
    void sizesAboveMaxPayloadClose() {
        NatsParser parser = new NatsParser(4096, 10);
        assertThat(parseAll(parser, "PUB a 10\r\n0123456789\r\nPUB a 11\r\n")).containsExactly(
            "PUB a null [0123456789]", "ERR MAX_PAYLOAD");
        assertThat(parseAll(new NatsParser(4096, 10), "HPUB a 8 11\r\n")).containsExactly("ERR MAX_PAYLOAD");
        assertThat(parseAll(new NatsParser(4096, 10), "PUB a 999999999\r\n")).containsExactly("ERR MAX_PAYLOAD");
    }

    @Test
    void maxPayloadCanBeChangedBetweenCalls() {
        NatsParser parser = new NatsParser(4096, 10);
        Recorder r = new Recorder();
        ByteBuf in = buf("PUB a 5\r\n");
        parser.parse(in, r);
        parser.setMaxPayload(4);
        in.writeBytes(buf("12345\r\n"));
        parser.parse(in, r);
        assertThat(r.events).containsExactly("ERR MAX_PAYLOAD");
        assertThat(parser.maxPayload()).isEqualTo(4);
    }

    @Test
    void controlLineLimitCountsTheLineWithoutItsEnd() {
        String line64 = "SUB " + "s".repeat(58) + " 1"; // 64 bytes
        assertThat(parseAll(new NatsParser(64, 32), line64 + "\r\n")).containsExactly("SUB " + "s".repeat(58) + " null 1");
        assertThat(parseAll(new NatsParser(64, 32), line64 + "\n")).hasSize(1).first().asString().startsWith("SUB");
        assertThat(parseAll(new NatsParser(64, 32), line64 + "2\r\n")).containsExactly("ERR MAX_CONTROL_LINE");
        assertThat(parseAll(new NatsParser(64, 32), line64 + "2\n")).containsExactly("ERR MAX_CONTROL_LINE");
        assertThat(parseAll(new NatsParser(64, 32), "PUB " + "s".repeat(100))).containsExactly("ERR MAX_CONTROL_LINE");
        assertThat(parseAll(new NatsParser(64, 32), line64 + "22")).containsExactly("ERR MAX_CONTROL_LINE");
        Recorder r = new Recorder();
        new NatsParser(64, 32).parse(buf(line64 + "\r"), r);
        assertThat(r.events).as("65 bytes ending in CR may still end in LF").isEmpty();
    }

    @Test
    void closedParserReportsOnceAndDiscardsFurtherInput() {
        NatsParser parser = new NatsParser(4096, 1024);
        Recorder r = new Recorder();
        ByteBuf in = buf("PING\r\nBAD\r\nPING\r\n");
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING", "ERR UNKNOWN_OPERATION");
        assertThat(r.details.get(0)).contains("'BAD\\x0d\\x0aPING\\x0d\\x0a'");
        assertThat(parser.isClosed()).isTrue();
        assertThat(in.readerIndex()).isEqualTo(6);
        in.writeBytes(buf("PING\r\n"));
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING", "ERR UNKNOWN_OPERATION");
        assertThat(in.isReadable()).isFalse();
    }

    @Test
    void closeFromACallbackStopsParsingAtOnce() {
        NatsParser parser = new NatsParser(4096, 1024);
        Recorder r = new Recorder() {
            @Override
            public boolean onConnect(String json) {
                super.onConnect(json);
                parser.close();
                return true;
            }
        };
        ByteBuf in = buf("PING\r\nCONNECT {}\r\nPING\r\n");
        parser.parse(in, r);
        assertThat(r.events).containsExactly("PING", "CONNECT {}");
        assertThat(parser.isClosed()).isTrue();
        parser.parse(in.writeBytes(buf("PONG\r\n")), r);
        assertThat(r.events).containsExactly("PING", "CONNECT {}");
        assertThat(in.isReadable()).isFalse();
    }

    @Test
    void errorDetailsNameTheProblem() {
        Recorder r = new Recorder();
        new NatsParser(4096, 10).parse(buf("HPUB a 9 8\r\n"), r);
        assertThat(r.details).containsExactly("HPUB header size 9 > total size 8");
        r = new Recorder();
        new NatsParser(4096, 10).parse(buf("PUB a 11\r\n"), r);
        assertThat(r.details).containsExactly("PUB size 11 > max_payload 10");
    }

    @Test
    void rejectsOutOfRangeLimitsNamingTheValue() {
        assertThatThrownBy(() -> new NatsParser(0, 10)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("maxControlLine=0");
        assertThatThrownBy(() -> new NatsParser(NatsParser.MAX_CONTROL_LINE_LIMIT + 1, 10))
            .hasMessageContaining("maxControlLine=" + (NatsParser.MAX_CONTROL_LINE_LIMIT + 1));
        assertThatThrownBy(() -> new NatsParser(10, -1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("maxPayload=-1");
        assertThatThrownBy(() -> new NatsParser(10, 10).setMaxPayload(NatsParser.MAX_SIZE + 1))
            .hasMessageContaining("maxPayload=" + (NatsParser.MAX_SIZE + 1));
        assertThat(new NatsParser(ServerConfig.MAX_CONTROL_LINE, ServerConfig.DEFAULT_MAX_PAYLOAD).maxControlLine())
            .isEqualTo(4096);
        assertThat(ServerConfig.DEFAULT_MAX_PAYLOAD).isEqualTo(1024 * 1024);
    }
}
