package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random inputs (random bytes, and valid streams mutated by bit flips, truncation, inserted
 * CR/LF, huge numbers...) fed whole and in random chunks with random refusals. Checks that the
 * parser never throws, always returns, reports each PUB/HPUB with exactly the announced sizes,
 * gives the same callbacks whatever the chunking, never holds more than one operation's worth of
 * unconsumed input, and stops for good after a closing error.
 */
class NatsParserFuzzTest {
    private static final long SEED = 0x5eed_2025_0611L;
    private static final int THREADS = 2;
    private static final int INPUTS_PER_THREAD = 1_000_000;

    @Test
    @Timeout(300) // guards against a hang only; normal runs take seconds
    void survivesRandomAndMutatedStreamsInRandomChunks() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<int[]>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long seed = SEED + t;
                results.add(pool.submit(() -> {
                    try (Campaign campaign = new Campaign(seed)) {
                        return campaign.run(INPUTS_PER_THREAD);
                    }
                }));
            }
            int[] totals = new int[3];
            for (Future<int[]> f : results) {
                int[] r = f.get();
                for (int i = 0; i < totals.length; i++) {
                    totals[i] += r[i];
                }
            }
            System.out.printf("NatsParserFuzzTest: %d inputs (each fed whole and chunked), %d publishes delivered,"
                + " %d inputs ending in an error%n", totals[0], totals[1], totals[2]);
            // The campaign must reach both good operations and errors, or it tests little.
            int inputs = THREADS * INPUTS_PER_THREAD;
            assertThat(totals[0]).as("inputs").isEqualTo(inputs);
            assertThat(totals[1]).as("publishes delivered").isGreaterThan(inputs / 4);
            assertThat(totals[2]).as("inputs ending in an error").isGreaterThan(inputs / 4);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Inputs the campaign found, replayed with many chunkings. None broke the parser as committed:
     * each one exposed a bug deliberately injected to check that the campaign catches it, or an
     * assumption of this harness that was wrong.
     */
    @Test
    void regressionInputs() {
        String[][] cases = {
            // size "4294967296" parsed with 18 digits and cast to int wrapped to 0
            {"554e73556220092031380d0a505542202a7830627820632e2d785f2a792e622a7a622e7a5f796362623e79782d2e63397a397a62"
                + "63782e392e2e3030623e625f6279395f5f612d797a3e20343239343936373239360d0a0d0a2b4f4b0d0a505562", "4096", "33"},
            // only the LF after a payload checked: an 8-byte payload followed by "i\n" was accepted
            {"5055422009202d2a20350d0a4b6e6c0f420d0a5055422062637a616339302d633020380d0a9555869e35357f7c690a754e735542"
                + "203331203334303937", "38", "17"},
            // storing a fifth token overflowed the argument arrays
            {"556e5355622031362032383238333939305355622031362032383238333939303620323134373438333634380d0a",
                "4096", "23"},
            // LF searched one byte short of maxControlLine + CRLF: a 19-byte line at a 19-byte limit
            // failed with MAX_CONTROL_LINE when more input followed it, not when a chunk ended at its LF
            {"2b4f6b0d0a53554220397a622d6230792035320d0a556e73554220372031303535312834363934350d0a434f4e4e654354207b22"
                + "766572626f7365223a66616c73652c226e616d65223a22785f2d2e30227d0d0a504f4e47200d0a", "19", "12"},
            // harness: a verb prefix ("CoNNeCT") is held even when longer than a 1-byte line limit
            {"436f4e4e654354207b22766572626f7365223a66616c73652c226e616d", "1", "0"},
        };
        for (String[] c : cases) {
            byte[] input = HexFormat.of().parseHex(c[0]);
            for (long seed = 0; seed < 200; seed++) {
                try (Campaign campaign = new Campaign(seed)) {
                    campaign.check(input, Integer.parseInt(c[1]), Integer.parseInt(c[2]));
                }
            }
        }
    }

    /** One thread's run: its own random source and reusable buffers. */
    static final class Campaign implements AutoCloseable {
        private final SplittableRandom random;
        private final ByteBuf heap = Unpooled.buffer(1024);
        private final ByteBuf direct = Unpooled.directBuffer(1024);
        private int publishes;
        private int errors;

        Campaign(long seed) {
            random = new SplittableRandom(seed);
        }

        @Override
        public void close() {
            heap.release();
            direct.release();
        }

        int[] run(int inputs) {
            for (int i = 0; i < inputs; i++) {
                byte[] input = switch (random.nextInt(4)) {
                    case 0 -> randomBytes();
                    case 1 -> validStream();
                    default -> mutate(validStream());
                };
                int maxControlLine = random.nextInt(3) == 0 ? 4096 : random.nextInt(1, 80);
                int maxPayload = random.nextInt(3) == 0 ? ServerConfig.DEFAULT_MAX_PAYLOAD : random.nextInt(0, 48);
                try {
                    check(input, maxControlLine, maxPayload);
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError("input hex=" + HexFormat.of().formatHex(input) + " maxControlLine="
                        + maxControlLine + " maxPayload=" + maxPayload, e);
                }
            }
            return new int[] {inputs, publishes, errors};
        }

        void check(byte[] input, int maxControlLine, int maxPayload) {
            List<String> whole = feed(input, maxControlLine, maxPayload, false);
            List<String> chunked = feed(input, maxControlLine, maxPayload, true);
            assertThat(chunked).as("same callbacks whatever the chunking").isEqualTo(whole);
            if (!whole.isEmpty() && whole.get(whole.size() - 1).startsWith("ERR")) {
                errors++;
            }
        }

        private List<String> feed(byte[] input, int maxControlLine, int maxPayload, boolean chunked) {
            NatsParser parser = new NatsParser(maxControlLine, maxPayload);
            ByteBuf in = (random.nextInt(8) == 0 ? direct : heap).clear();
            Checker checker = new Checker(in, chunked ? random : null);
            int pos = 0;
            while (pos < input.length && !parser.isClosed()) {
                int n = chunked ? chunkSize(input.length - pos) : input.length - pos;
                in.writeBytes(input, pos, n);
                pos += n;
                for (int calls = 0; ; calls++) {
                    assertThat(calls).as("a refusal is retried a bounded number of times").isLessThan(200);
                    checker.refusedThisCall = false;
                    parser.parse(in, checker);
                    if (!checker.refusedThisCall || parser.isClosed()) {
                        break;
                    }
                }
                assertThat(parser.isClosed()).isEqualTo(checker.errored);
                if (!parser.isClosed()) {
                    // A verb prefix ("CONNECT\r") may need 8 bytes to tell, even past a tiny line limit.
                    assertThat(in.readableBytes()).as("holds at most one incomplete operation")
                        .isLessThanOrEqualTo(Math.max(maxControlLine + 2, 8) + maxPayload + 2);
                    if (chunked && random.nextInt(4) == 0) {
                        in.discardReadBytes();
                    }
                }
            }
            assertThat(checker.events.size()).as("callbacks bounded by input").isLessThanOrEqualTo(input.length);
            return checker.events;
        }

        private int chunkSize(int remaining) {
            int n = random.nextInt(3) == 0 ? 1 + random.nextInt(4) : 1 + random.nextInt(remaining);
            return Math.min(n, remaining);
        }

        private byte[] randomBytes() {
            byte[] b = new byte[random.nextInt(1, 64)];
            String protocolish = "PUBHSNGICTOKER+-pubhsngictoker \t\r\n0123456789";
            for (int i = 0; i < b.length; i++) {
                b[i] = random.nextBoolean() ? (byte) random.nextInt(256)
                    : (byte) protocolish.charAt(random.nextInt(protocolish.length()));
            }
            return b;
        }

        byte[] validStream() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int ops = random.nextInt(1, 6); ops > 0; ops--) {
                switch (random.nextInt(8)) {
                    case 0, 1 -> {
                        byte[] payload = payload();
                        line(out, "PUB", subject(), random.nextBoolean() ? subject() : null,
                            Integer.toString(payload.length));
                        out.writeBytes(payload);
                        ascii(out, "\r\n");
                    }
                    case 2 -> {
                        String headers = "NATS/1.0\r\n" + (random.nextBoolean() ? "K: " + subject() + "\r\n" : "") + "\r\n";
                        byte[] payload = payload();
                        int total = headers.length() + payload.length;
                        line(out, "HPUB", subject(), random.nextBoolean() ? subject() : null,
                            headers.length() + sep() + total);
                        ascii(out, headers);
                        out.writeBytes(payload);
                        ascii(out, "\r\n");
                    }
                    case 3 -> line(out, "SUB", subject(), random.nextBoolean() ? subject() : null,
                        Integer.toString(random.nextInt(100)));
                    case 4 -> line(out, "UNSUB", Integer.toString(random.nextInt(100)), null,
                        random.nextBoolean() ? Long.toString(random.nextLong(1L << 40)) : null);
                    case 5 -> line(out, "CONNECT", "{\"verbose\":false,\"name\":\"" + subject() + "\"}", null, null);
                    case 6 -> line(out, random.nextBoolean() ? "PING" : "PONG", null, null, null);
                    default -> line(out, "+OK", null, null, null);
                }
            }
            return out.toByteArray();
        }

        private void line(ByteArrayOutputStream out, String verb, String a, String b, String c) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < verb.length(); i++) {
                char ch = verb.charAt(i);
                sb.append(random.nextInt(4) == 0 ? Character.toLowerCase(ch) : ch);
            }
            for (String arg : new String[] {a, b, c}) {
                if (arg != null) {
                    sb.append(sep()).append(arg);
                }
            }
            sb.append(random.nextInt(10) == 0 ? " " : "").append(random.nextInt(8) == 0 ? "\n" : "\r\n");
            ascii(out, sb.toString());
        }

        private String sep() {
            return random.nextInt(6) != 0 ? " " : random.nextBoolean() ? "\t" : " \t ";
        }

        private String subject() {
            String chars = "abcxyz.*>_-09";
            int length = random.nextInt(12) == 0 ? random.nextInt(40, 100) : random.nextInt(1, 12);
            StringBuilder sb = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                sb.append(chars.charAt(random.nextInt(chars.length())));
            }
            return sb.toString();
        }

        private byte[] payload() {
            byte[] p = new byte[random.nextInt(8) == 0 ? random.nextInt(40, 80) : random.nextInt(0, 16)];
            String tricky = "\r\nPUB 5";
            for (int i = 0; i < p.length; i++) {
                p[i] = random.nextBoolean() ? (byte) tricky.charAt(random.nextInt(tricky.length()))
                    : (byte) random.nextInt(256);
            }
            return p;
        }

        byte[] mutate(byte[] original) {
            byte[] b = original;
            String[] numbers = {"99999999999999999999", "-1", "4294967296", "2147483648", "0", "999999999",
                "1000000000", "18446744073709551616", "", "+3", "0x10"};
            for (int m = random.nextInt(1, 4); m > 0 && b.length > 0; m--) {
                int at = random.nextInt(b.length);
                switch (random.nextInt(8)) {
                    case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
                    case 1 -> b[at] = (byte) random.nextInt(256);
                    case 2 -> b = splice(b, at, at + random.nextInt(0, Math.min(8, b.length - at) + 1), new byte[0]);
                    case 3 -> b = splice(b, at, at, ascii(new String[] {"\r", "\n", "\r\n", " ", "\t"}[random.nextInt(5)]));
                    case 4 -> b = splice(b, at, at, slice(b, at, Math.min(b.length, at + random.nextInt(1, 16))));
                    case 5 -> b = slice(b, 0, at);
                    default -> {
                        int digit = firstDigitRunFrom(b, at);
                        if (digit >= 0) {
                            int end = digit;
                            while (end < b.length && b[end] >= '0' && b[end] <= '9') {
                                end++;
                            }
                            b = splice(b, digit, end, ascii(numbers[random.nextInt(numbers.length)]));
                        }
                    }
                }
            }
            return b;
        }

        private static int firstDigitRunFrom(byte[] b, int from) {
            for (int i = 0; i < b.length; i++) {
                int j = (from + i) % b.length;
                if (b[j] >= '0' && b[j] <= '9' && (j == 0 || b[j - 1] == ' ' || b[j - 1] == '\t')) {
                    return j;
                }
            }
            return -1;
        }

        private static byte[] splice(byte[] b, int from, int to, byte[] insert) {
            byte[] r = new byte[b.length - (to - from) + insert.length];
            System.arraycopy(b, 0, r, 0, from);
            System.arraycopy(insert, 0, r, from, insert.length);
            System.arraycopy(b, to, r, from + insert.length, b.length - to);
            return r;
        }

        private static byte[] slice(byte[] b, int from, int to) {
            byte[] r = new byte[to - from];
            System.arraycopy(b, from, r, 0, r.length);
            return r;
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.ISO_8859_1);
        }

        private static void ascii(ByteArrayOutputStream out, String s) {
            out.writeBytes(ascii(s));
        }

        /**
         * Records callbacks and checks each PUB/HPUB against an independent reading of its control
         * line (the reader index is at the start of the operation during the callback).
         */
        final class Checker implements ProtocolHandler {
            final List<String> events = new ArrayList<>();
            private final ByteBuf in;
            private final SplittableRandom refusals;
            private String refusedEvent;
            boolean refusedThisCall;
            boolean errored;

            Checker(ByteBuf in, SplittableRandom refusals) {
                this.in = in;
                this.refusals = refusals;
            }

            @Override
            public boolean onPub(String subject, String replyTo, ByteBuf input, int payloadAt, int payloadLength) {
                ByteBuf payload = input.slice(payloadAt, payloadLength);
                String[] args = controlLineArgs();
                assertThat(args[0]).isEqualToIgnoringCase("PUB");
                assertThat((long) payload.readableBytes()).as("announced size")
                    .isEqualTo(Long.parseLong(args[args.length - 1]));
                assertThat(subject).isEqualTo(args[1]);
                assertThat(replyTo).isEqualTo(args.length == 4 ? args[2] : null);
                int lf = lineFeed();
                assertSliceAt(lf + 1, payload);
                assertCrlfAt(lf + 1 + payload.readableBytes());
                return offer("PUB " + subject + " " + replyTo + " " + NatsParserTest.Recorder.latin1(payload));
            }

            @Override
            public boolean onHpub(String subject, String replyTo, ByteBuf input, int headersAt, int headersLength,
                                int payloadLength) {
                ByteBuf headers = input.slice(headersAt, headersLength);
                ByteBuf payload = input.slice(headersAt + headersLength, payloadLength);
                String[] args = controlLineArgs();
                assertThat(args[0]).isEqualToIgnoringCase("HPUB");
                assertThat((long) headers.readableBytes()).as("announced header size")
                    .isEqualTo(Long.parseLong(args[args.length - 2]));
                int headerSize = headers.readableBytes();
                assertThat((long) headerSize + payload.readableBytes()).as("announced total size")
                    .isEqualTo(Long.parseLong(args[args.length - 1]));
                // Any header block is forwarded as it is (nats-server checks nothing more): no version check.
                int lf = lineFeed();
                assertSliceAt(lf + 1, headers);
                assertSliceAt(lf + 1 + headerSize, payload);
                assertCrlfAt(lf + 1 + headerSize + payload.readableBytes());
                return offer("HPUB " + subject + " " + replyTo + " " + NatsParserTest.Recorder.latin1(headers)
                    + NatsParserTest.Recorder.latin1(payload));
            }

            private boolean offer(String event) {
                assertThat(errored).as("no callback after an error").isFalse();
                if (refusedEvent != null) {
                    assertThat(event).as("a refused operation comes back first").isEqualTo(refusedEvent);
                    refusedEvent = null;
                }
                if (refusals != null && refusals.nextInt(6) == 0) {
                    refusedEvent = event;
                    refusedThisCall = true;
                    return false;
                }
                publishes++;
                return record(event);
            }

            private String[] controlLineArgs() {
                int start = in.readerIndex();
                int lf = lineFeed();
                int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
                // Tokens are byte strings, each decoded one to one (SubjectCodec), never the line as a whole.
                byte[] line = new byte[end - start];
                in.getBytes(start, line);
                java.util.List<String> args = new java.util.ArrayList<>();
                int from = -1;
                for (int i = 0; i <= line.length; i++) {
                    boolean space = i == line.length || line[i] == ' ' || line[i] == '\t';
                    if (!space && from < 0) {
                        from = i;
                    } else if (space && from >= 0) {
                        args.add(SubjectCodec.decode(line, from, i));
                        from = -1;
                    }
                }
                return args.toArray(new String[0]);
            }

            /** The slice must be the input bytes at {@code at}: a view of the input, not something else. */
            private void assertSliceAt(int at, ByteBuf slice) {
                assertThat(at + slice.readableBytes()).isLessThanOrEqualTo(in.writerIndex());
                assertThat(ByteBufUtil.equals(in, at, slice, slice.readerIndex(), slice.readableBytes())).isTrue();
            }

            private void assertCrlfAt(int at) {
                assertThat(at + 2).isLessThanOrEqualTo(in.writerIndex());
                assertThat(in.getByte(at)).isEqualTo((byte) '\r');
                assertThat(in.getByte(at + 1)).isEqualTo((byte) '\n');
            }

            private int lineFeed() {
                return in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
            }

            private boolean record(String event) {
                events.add(event);
                return true;
            }

            @Override
            public boolean onConnect(String json) {
                onOther("CONNECT " + json);
                return true;
            }

            @Override
            public void onSub(String subject, String queueGroup, String sid) {
                onOther("SUB " + subject + " " + queueGroup + " " + sid);
            }

            @Override
            public void onUnsub(String sid, long maxMessages) {
                assertThat(maxMessages).isGreaterThanOrEqualTo(-1);
                onOther("UNSUB " + sid + " " + maxMessages);
            }

            @Override
            public void onPing() {
                onOther("PING");
            }

            @Override
            public void onPong() {
                onOther("PONG");
            }

            private void onOther(String event) {
                assertThat(errored).as("no callback after an error").isFalse();
                assertThat(refusedEvent).as("a refused operation comes back first").isNull();
                record(event);
            }

            @Override
            public void onError(ProtocolError error, String detail) {
                assertThat(errored).as("one error only").isFalse();
                assertThat(error.closes()).isTrue();
                assertThat(detail).isNotBlank();
                errored = true;
                record("ERR " + error);
            }
        }
    }
}
