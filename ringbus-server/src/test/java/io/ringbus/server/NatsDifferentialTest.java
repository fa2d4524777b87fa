package io.ringbus.server;

import io.ringbus.testkit.LoopbackPorts;
import io.ringbus.testkit.Await;
import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * ringbus-server answers raw protocol input byte for byte as nats-server does: the same corpus of
 * valid, odd and malformed inputs goes over plain sockets to a real nats-server (Debian's
 * {@code /usr/sbin/nats-server}, started here on a free port) and to a ringbus-server, and what
 * each server sent back is compared.
 *
 * <p>A case is a list of writes, each on one of a few connections. A connection reads INFO when
 * it opens. After each write the test sends {@code PING} on that connection and reads until the
 * {@code PONG} (the answer to the write is then complete: both servers answer a PING after
 * everything before it), or until the server closes the connection. MSG and HMSG payloads are
 * read by their announced size, so a payload cannot be mistaken for a PONG.
 *
 * <p>Normalised before comparing, because they legitimately differ: INFO keeps only the fields a
 * client acts on ({@link #INFO_COMPARED}; not server_id, server_name, version, go, host, port,
 * client_id, nonce, git_commit) and is re-rendered (nats-server ends its INFO line with a space);
 * the text of {@code -ERR} is compared ignoring case. Everything else must be the same bytes,
 * except the documented differences in {@link #KNOWN_DIFFERENCES}, whose cases must still differ
 * (so that a fixed one is taken off the table).
 *
 * <p>Both servers: no authorization, every subject allowed, max_payload 1024. Needs
 * {@code /usr/sbin/nats-server}; skipped without it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class NatsDifferentialTest {
    private static final Path NATS_SERVER = Path.of("/usr/sbin/nats-server");
    private static final int MAX_PAYLOAD = 1024;
    /** Bound on a wait for any answer; a server silent this long is recorded as silent. */
    private static final int READ_TIMEOUT_MILLIS = 5_000;
    /** INFO fields compared (by value); the others describe the server, not the protocol. */
    private static final Set<String> INFO_COMPARED = Set.of("proto", "headers", "max_payload", "client_ip",
            "auth_required", "tls_required", "tls_available", "jetstream", "ldm");
    private static final String SAYS_WHY_BEFORE_CLOSING = "nats-server closes without a word on malformed "
            + "arguments, a CONNECT that is not JSON and a client's -ERR; ringbus sends -ERR 'Parser Error' "
            + "('Invalid Client Protocol' for CONNECT) first, so that the client's log says why";
    private static final String PRECISE_TERMINATOR_ERROR = "a payload not followed by CRLF: nats-server says "
            + "'Unknown Protocol Operation', ringbus the more precise 'Parser Error'; both close";
    private static final String CONNECT = "CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":true}\r\n";

    /**
     * Case name -> why ringbus answers differently, on purpose (NatsParser's javadoc and
     * docs/server.md, "Differences from nats-server"). In every one both servers close the
     * connection; only the words before the close differ. Each case must still differ.
     */
    private static final Map<String, String> KNOWN_DIFFERENCES = Map.ofEntries(
            Map.entry("connect-not-json", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("size-huge", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("size-negative", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("size-not-numeric", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("pub-missing-size", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("pub-too-many-arguments", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("sub-missing-sid", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("sub-too-many-arguments", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("hpub-header-size-over-total", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("client-sends-err", SAYS_WHY_BEFORE_CLOSING),
            Map.entry("payload-longer-than-announced", PRECISE_TERMINATOR_ERROR),
            Map.entry("payload-shorter-than-announced", PRECISE_TERMINATOR_ERROR),
            Map.entry("bare-lf-after-payload", PRECISE_TERMINATOR_ERROR));

    private Process nats;
    private int natsPort;
    private ServerUnderTest ringbus;

    /** One write of a case: {@code bytes} (ISO-8859-1, so that \u00ff is the byte 0xff) on connection {@code conn}. */
    private record Step(int conn, String bytes) {
    }

    private record Case(String name, List<Step> steps) {
    }

    private static Case c(String name, Object... connectionsAndWrites) {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < connectionsAndWrites.length; i += 2) {
            steps.add(new Step((Integer) connectionsAndWrites[i], (String) connectionsAndWrites[i + 1]));
        }
        return new Case(name, steps);
    }

    /** The corpus: valid, odd and malformed input. Connection 0 writes unless a case says otherwise. */
    private static List<Case> corpus() {
        String big = "x".repeat(MAX_PAYLOAD);
        return List.of(
                // CONNECT variants
                c("connect-plain", 0, CONNECT),
                c("connect-verbose", 0, "CONNECT {\"verbose\":true}\r\nSUB s 1\r\nPUB s 2\r\nhi\r\nUNSUB 1\r\n"),
                c("connect-pedantic-odd-publish-subject", 0,
                        "CONNECT {\"verbose\":false,\"pedantic\":true}\r\nPUB orders..created 2\r\nhi\r\n"),
                c("connect-pedantic-wildcard-publish-subject", 0,
                        "CONNECT {\"verbose\":false,\"pedantic\":true}\r\nPUB a.* 2\r\nhi\r\n"),
                c("connect-not-json", 0, "CONNECT {not json\r\n"),
                c("connect-unknown-fields", 0, "CONNECT {\"verbose\":false,\"shoe_size\":44}\r\n"),
                c("connect-echo-false", 0, "CONNECT {\"verbose\":false,\"pedantic\":false,\"echo\":false}\r\nSUB s 1\r\nPUB s 2\r\nhi\r\n"),
                c("connect-echo-true", 0, "CONNECT {\"verbose\":false,\"pedantic\":false,\"echo\":true}\r\nSUB s 1\r\nPUB s 2\r\nhi\r\n"),
                c("connect-no-responders", 0, "CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":true,\"no_responders\":true}\r\n"
                        + "SUB _INBOX.x 1\r\nPUB nobody _INBOX.x 0\r\n\r\n"),
                c("connect-no-responders-without-headers", 0, "CONNECT {\"verbose\":false,\"pedantic\":false,\"no_responders\":true}\r\n"),
                c("connect-lowercase-verb", 0, "connect {\"verbose\":false,\"pedantic\":false}\r\n"),
                c("connect-empty-object-means-verbose-and-pedantic", 0, "CONNECT {}\r\nSUB s 1\r\nPUB a.* 2\r\nhi\r\n"),
                c("connect-twice", 0, CONNECT + CONNECT),
                c("no-connect-at-all", 0, "SUB s 1\r\nPUB s 2\r\nhi\r\n"),
                // whitespace, case, line ends
                c("lowercase-verbs", 0, CONNECT + "sub s 1\r\npub s 2\r\nhi\r\nunsub 1\r\nping\r\n"),
                c("tabs-as-separators", 0, CONNECT + "SUB\ts\t1\r\nPUB\ts\t2\r\nhi\r\n"),
                c("extra-spaces", 0, CONNECT + "SUB  s   1  \r\nPUB s  2   \r\nhi\r\n"),
                c("bare-lf-line-ends", 0, CONNECT + "SUB s 1\nPUB s 2\nhi\r\n"),
                c("bare-lf-after-payload", 0, CONNECT + "SUB s 1\r\nPUB s 2\r\nhi\n"),
                c("empty-line", 0, CONNECT + "\r\n"),
                c("leading-space", 0, CONNECT + " PING\r\n"),
                // sizes
                c("size-huge", 0, CONNECT + "PUB s 99999999999999999999\r\n"),
                c("size-negative", 0, CONNECT + "PUB s -1\r\n"),
                c("size-not-numeric", 0, CONNECT + "PUB s abc\r\n"),
                c("size-over-max-payload", 0, CONNECT + "PUB s " + (MAX_PAYLOAD + 1) + "\r\n"),
                c("size-exactly-max-payload", 0, CONNECT + "SUB s 1\r\nPUB s " + MAX_PAYLOAD + "\r\n" + big + "\r\n"),
                c("hpub-total-over-max-payload", 0, CONNECT + "HPUB s 12 " + (MAX_PAYLOAD + 1) + "\r\n"),
                c("payload-longer-than-announced", 0, CONNECT + "PUB s 2\r\nhello\r\n"),
                c("payload-shorter-than-announced", 0, CONNECT + "PUB s 5\r\nhi\r\n"),
                c("zero-payload", 0, CONNECT + "SUB s 1\r\nPUB s 0\r\n\r\n"),
                // arguments
                c("pub-missing-size", 0, CONNECT + "PUB s\r\n"),
                c("pub-too-many-arguments", 0, CONNECT + "PUB s r x 2\r\nhi\r\n"),
                c("sub-missing-sid", 0, CONNECT + "SUB s\r\n"),
                c("sub-too-many-arguments", 0, CONNECT + "SUB s q 1 x\r\n"),
                c("sub-queue-group", 0, CONNECT + "SUB s q 1\r\nPUB s 2\r\nhi\r\n"),
                c("pub-with-reply", 0, CONNECT + "SUB s 1\r\nPUB s r.1 2\r\nhi\r\n"),
                c("unsub-unknown-sid", 0, CONNECT + "UNSUB 99\r\n"),
                c("unsub-max", 0, CONNECT + "SUB s 1\r\nUNSUB 1 1\r\nPUB s 1\r\na\r\nPUB s 1\r\nb\r\n"),
                c("unsub-max-not-numeric", 0, CONNECT + "SUB s 1\r\nUNSUB 1 x\r\n"),
                c("control-line-too-long", 0, CONNECT + "PUB " + "a".repeat(5000) + " 1\r\nx\r\n"),
                // subjects
                c("publish-empty-token", 0, CONNECT + "SUB > 1\r\nPUB orders..created 2\r\nhi\r\n"),
                c("publish-wildcards", 0, CONNECT + "SUB > 1\r\nPUB a.* 2\r\nhi\r\nPUB a.> 2\r\nhi\r\n"),
                c("publish-leading-dot", 0, CONNECT + "SUB > 1\r\nPUB .a 2\r\nhi\r\n"),
                c("subscribe-empty-token", 0, CONNECT + "SUB a..b 1\r\n"),
                c("subscribe-trailing-dot", 0, CONNECT + "SUB a. 1\r\n"),
                c("subscribe-full-wildcard-not-last", 0, CONNECT + "SUB a.>.b 1\r\n"),
                c("subscribe-partial-wildcard-token", 0, CONNECT + "SUB a.b* 1\r\nPUB a.b* 2\r\nhi\r\n"),
                c("non-utf8-subject", 0, CONNECT + "SUB \u00ff.\u00fe 1\r\nPUB \u00ff.\u00fe 2\r\nhi\r\n"),
                c("non-utf8-subjects-do-not-alias", 0, CONNECT + "SUB \u00ff 1\r\nPUB \u00fe 2\r\nhi\r\n"),
                c("non-utf8-payload", 0, CONNECT + "SUB s 1\r\nPUB s 2\r\n\u00ff\u00fe\r\n"),
                // headers
                c("hpub-status-line", 0, CONNECT + "SUB s 1\r\nHPUB s 16 18\r\nNATS/1.0 503\r\n\r\nhi\r\n"),
                c("hpub-empty-header-block", 0, CONNECT + "SUB s 1\r\nHPUB s 12 14\r\nNATS/1.0\r\n\r\nhi\r\n"),
                c("hpub-header-without-space", 0, CONNECT + "SUB s 1\r\nHPUB s 17 19\r\nNATS/1.0\r\nK:v\r\n\r\nhi\r\n"),
                c("hpub-header-odd-spacing", 0,
                        CONNECT + "SUB s 1\r\nHPUB s 21 23\r\nNATS/1.0\r\nK:  v  \r\n\r\nhi\r\n"),
                c("hpub-header-size-over-total", 0, CONNECT + "HPUB s 20 10\r\n"),
                c("hpub-not-nats-version", 0, CONNECT + "SUB s 1\r\nHPUB s 7 9\r\nFOO\r\n\r\nhi\r\n"),
                c("hpub-without-headers-in-connect", 0, "CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":false}\r\nSUB s 1\r\n"
                        + "HPUB s 12 14\r\nNATS/1.0\r\n\r\nhi\r\n"),
                c("headers-to-a-client-without-headers",
                        1, "CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":false}\r\nSUB s 1\r\n",
                        0, CONNECT + "HPUB s 18 20\r\nNATS/1.0\r\nA: b\r\n\r\nhi\r\n",
                        1, ""),
                c("headers-to-a-client-with-headers",
                        1, CONNECT + "SUB s 1\r\n",
                        0, CONNECT + "HPUB s 18 20\r\nNATS/1.0\r\nA: b\r\n\r\nhi\r\n",
                        1, ""),
                // pipelining and other ops
                c("pipelined-sub-pub-unsub", 0, CONNECT + "SUB s 1\r\nPUB s 2\r\nhi\r\nUNSUB 1\r\n"),
                c("pipelined-in-first-write", 0, CONNECT + "SUB s 1\r\nPUB s 2\r\nhi\r\nUNSUB 1\r\nPUB s 2\r\nno\r\n"),
                c("unknown-op", 0, CONNECT + "FOO bar\r\n"),
                c("verb-without-separator", 0, CONNECT + "PINGX\r\n"),
                c("client-sends-err", 0, CONNECT + "-ERR 'boom'\r\n"),
                c("client-sends-ok", 0, CONNECT + "+OK\r\n"),
                c("unsolicited-pong", 0, CONNECT + "PONG\r\n"),
                c("ping-with-argument", 0, CONNECT + "PING now\r\n"),
                c("msg-from-client", 0, CONNECT + "MSG s 1 2\r\nhi\r\n"),
                c("info-from-client", 0, CONNECT + "INFO {}\r\n"));
    }

    @BeforeAll
    void startServers(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(NATS_SERVER), NATS_SERVER + " is not installed");
        Path config = dir.resolve("nats.conf");
        Files.writeString(config, "max_payload: " + MAX_PAYLOAD + "\n");
        natsPort = LoopbackPorts.free();
        nats = new ProcessBuilder(NATS_SERVER.toString(), "-a", "127.0.0.1", "-p", String.valueOf(natsPort), "-c",
                config.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Await.until("nats-server accepts connections on " + natsPort, () -> {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", natsPort), 1_000);
                return true;
            } catch (IOException notYet) {
                return false;
            }
        });
        ringbus = ServerUnderTest.start(b -> b.defaultScope(Scope.PUBLIC), c -> c.maxPayload(MAX_PAYLOAD));
    }

    @AfterAll
    void stopServers() throws InterruptedException {
        if (ringbus != null) {
            ringbus.close();
        }
        if (nats != null) {
            nats.destroy();
            nats.waitFor();
        }
    }

    @TestFactory
    Stream<DynamicTest> ringbusAnswersEveryInputAsNatsServerDoes() {
        return corpus().stream().map(testCase -> DynamicTest.dynamicTest(testCase.name(), () -> {
            List<String> expected = transcript(natsPort, testCase);
            List<String> actual = transcript(ringbus.port(), testCase);
            String reason = KNOWN_DIFFERENCES.get(testCase.name());
            if (reason == null) {
                assertThat(actual).as("ringbus-server's answer to %s (nats-server's is expected)%n%s",
                        testCase.name(), render(testCase)).isEqualTo(expected);
            } else {
                assertThat(actual).as("known difference %s (%s) no longer differs: take it off the table and "
                        + "docs/server.md", testCase.name(), reason).isNotEqualTo(expected);
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> everyKnownDifferenceIsACaseOfTheCorpus() {
        Set<String> names = corpus().stream().map(Case::name).collect(java.util.stream.Collectors.toSet());
        return KNOWN_DIFFERENCES.keySet().stream().map(name -> DynamicTest.dynamicTest(name,
                () -> assertThat(names).contains(name)));
    }

    /** Plays a case against the server on {@code port}; returns what it answered, normalised. */
    private static List<String> transcript(int port, Case testCase) throws IOException {
        Map<Integer, Conn> conns = new LinkedHashMap<>();
        List<String> out = new ArrayList<>();
        try {
            for (Step step : testCase.steps()) {
                Conn conn = conns.get(step.conn());
                if (conn == null) {
                    conn = new Conn(step.conn(), port);
                    conns.put(step.conn(), conn);
                    conn.readAnswer(out, false);
                }
                if (conn.closed) {
                    out.add("c" + step.conn() + " (closed before this write)");
                    continue;
                }
                conn.write(step.bytes() + "PING\r\n");
                conn.readAnswer(out, true);
            }
        } finally {
            conns.values().forEach(Conn::close);
        }
        return out;
    }

    /** One raw connection: writes bytes, reads protocol lines and payloads, notes a close. */
    private static final class Conn {
        private final int id;
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        boolean closed;

        Conn(int id, int port) throws IOException {
            this.id = id;
            socket = new Socket();
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        void write(String bytes) {
            try {
                out.write(bytes.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException e) {
                // the server may close while we write (after an -ERR): the read below sees the close
            }
        }

        /**
         * Reads until PONG (when {@code untilPong}), or one line (INFO), or the close, or
         * {@link #READ_TIMEOUT_MILLIS} of silence; appends what came, normalised, to {@code into}.
         */
        void readAnswer(List<String> into, boolean untilPong) throws IOException {
            String prefix = "c" + id + " ";
            while (true) {
                byte[] line;
                try {
                    line = readLine();
                } catch (SocketTimeoutException e) {
                    into.add(prefix + "(silent for " + READ_TIMEOUT_MILLIS + " ms)");
                    return;
                }
                if (line == null) {
                    into.add(prefix + "(closed)");
                    closed = true;
                    return;
                }
                String text = new String(line, StandardCharsets.ISO_8859_1);
                into.add(prefix + normalise(text));
                if (!untilPong || text.equals("PONG\r\n")) {
                    return;
                }
                String[] args = text.trim().split(" ");
                if ((args[0].equals("MSG") || args[0].equals("HMSG")) && args[args.length - 1].matches("\\d{1,9}")) {
                    try {
                        byte[] payload = in.readNBytes(Integer.parseInt(args[args.length - 1]) + 2);
                        into.add(prefix + "  payload " + escape(new String(payload, StandardCharsets.ISO_8859_1)));
                    } catch (SocketTimeoutException e) {
                        into.add(prefix + "(payload incomplete after " + READ_TIMEOUT_MILLIS + " ms)");
                        return;
                    }
                }
            }
        }

        /** @return the next line with its line end, or {@code null} at the end of the stream */
        private byte[] readLine() throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            try {
                for (int b = in.read(); b >= 0; b = in.read()) {
                    line.write(b);
                    if (b == '\n') {
                        return line.toByteArray();
                    }
                }
            } catch (SocketException reset) {
                // a reset after the server closed with our PING unread: the stream is over
            }
            return line.size() == 0 ? null : line.toByteArray();
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a test socket: nothing to do
            }
        }
    }

    /** INFO: only {@link #INFO_COMPARED}, re-rendered; -ERR: lower case; all: escaped. */
    private static String normalise(String line) {
        if (line.startsWith("INFO ")) {
            JsonValue info = JsonParser.parseUnchecked(line.substring(5).trim());
            Map<String, String> kept = new TreeMap<>();
            info.map.forEach((key, value) -> {
                if (INFO_COMPARED.contains(key)) {
                    kept.put(key, value.toJson());
                }
            });
            kept.putIfAbsent("auth_required", "false"); // nats-server omits it when false
            return "INFO " + kept + (line.endsWith("\r\n") ? "\\r\\n" : "(no CRLF)");
        }
        if (line.startsWith("-ERR")) {
            return escape(line.toLowerCase(Locale.ROOT));
        }
        return escape(line);
    }

    private static String escape(String bytes) {
        StringBuilder s = new StringBuilder();
        for (char ch : bytes.toCharArray()) {
            switch (ch) {
                case '\r' -> s.append("\\r");
                case '\n' -> s.append("\\n");
                case '\t' -> s.append("\\t");
                default -> {
                    if (ch < 0x20 || ch > 0x7e) {
                        s.append(String.format("\\x%02x", (int) ch));
                    } else {
                        s.append(ch);
                    }
                }
            }
        }
        return s.toString();
    }

    private static String render(Case testCase) {
        StringBuilder s = new StringBuilder("input:\n");
        for (Step step : testCase.steps()) {
            s.append("  c").append(step.conn()).append(" > ").append(escape(step.bytes() + "PING\r\n")).append('\n');
        }
        return s.toString();
    }

}
