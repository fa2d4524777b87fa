package io.ringbus.server;

import io.ringbus.testkit.Await;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The NATS client protocol on the wire, spoken by a plain socket: the INFO a client gets, +OK,
 * PING/PONG both ways, and every kind of bad input with NATS's exact {@code -ERR} text and
 * whether the connection stays open or is closed. After each bad input the server must go on
 * serving other clients.
 */
@Timeout(30)
class RawProtocolTest {
    private static final String ERR_UNKNOWN = "-ERR 'Unknown Protocol Operation'";
    private static final String ERR_PARSER = "-ERR 'Parser Error'";
    private static final String ERR_CONTROL_LINE = "-ERR 'Maximum Control Line Exceeded'";
    private static final String ERR_PAYLOAD = "-ERR 'Maximum Payload Violation'";
    private static final String ERR_PUBLISH_SUBJECT = "-ERR 'Invalid Publish Subject'";
    private static final String ERR_SUBJECT = "-ERR 'Invalid Subject'";
    private static final String PEDANTIC = "{\"verbose\":false,\"pedantic\":true,\"headers\":true}";
    private static final String NOT_PEDANTIC = "{\"verbose\":false,\"pedantic\":false,\"headers\":true}";

    @AutoClose
    private ServerUnderTest server;

    // ------------------------------------------------------------ INFO, CONNECT, +OK

    @Test
    void infoAnnouncesIdentityLimitsAndTheClientsAddress() {
        server = ServerUnderTest.start(c -> c.serverName("raw-test"));
        try (RawClient client = RawClient.connect(server.port())) {
            String info = client.readLine();

            assertThat(info).startsWith("INFO {").endsWith("}");
            assertThat(stringField(info, "server_id")).isNotBlank();
            assertThat(stringField(info, "server_name")).isEqualTo("raw-test");
            assertThat(stringField(info, "version")).as("the nats-server version served, which clients gate on")
                    .isEqualTo("2.9.10");
            assertThat(stringField(info, "ringbus_version")).isEqualTo("0.1.0");
            assertThat(field(info, "proto")).isEqualTo("1");
            assertThat(stringField(info, "host")).isEqualTo("127.0.0.1");
            assertThat(field(info, "port")).isEqualTo(Integer.toString(server.port()));
            assertThat(field(info, "headers")).isEqualTo("true");
            assertThat(field(info, "max_payload")).isEqualTo("1024");
            assertThat(field(info, "client_id")).matches("[0-9]+");
            assertThat(stringField(info, "client_ip")).isEqualTo("127.0.0.1");
            assertThat(info).doesNotContain("auth_required");
        }
    }

    @Test
    void infoGivesEachConnectionItsOwnClientId() {
        server = ServerUnderTest.start();
        try (RawClient first = RawClient.connect(server.port()); RawClient second = RawClient.connect(server.port())) {
            String firstId = field(first.readLine(), "client_id");
            String secondId = field(second.readLine(), "client_id");

            assertThat(firstId).isNotEqualTo(secondId);
        }
    }

    @Test
    void infoSaysAuthRequiredWhenCredentialsAreConfigured() {
        server = ServerUnderTest.start(c -> c.token("s3cret", Scope.FEDERATED));
        try (RawClient client = RawClient.connect(server.port())) {
            assertThat(field(client.readLine(), "auth_required")).isEqualTo("true");
        }
    }

    @Test
    void verboseModeAcknowledgesEveryOperationAsNatsServerDoes() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine();
            client.send("CONNECT {\"verbose\":true,\"pedantic\":true}\r\n");
            client.expectLine("+OK");

            client.send("SUB pub.verbose 1\r\nPUB pub.verbose 5\r\nhello\r\n");
            client.expectLine("+OK");
            client.expectLine("+OK");
            RawClient.Delivery delivery = client.readDelivery();
            assertThat(delivery.subject()).isEqualTo("pub.verbose");
            assertThat(delivery.text()).isEqualTo("hello");

            client.send("UNSUB 1\r\n");
            client.expectLine("+OK");

            client.send("PUB pub.* 2\r\nhi\r\n");
            client.expectLine(ERR_PUBLISH_SUBJECT);
            client.expectLine("+OK"); // nats-server acknowledges the refused PUB too, after its -ERR
            client.assertOpen();
        }
    }

    @Test
    void nonVerboseModeSendsNoAcknowledgements() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine();
            client.send("CONNECT {\"verbose\":false}\r\nSUB pub.quiet 1\r\nPUB pub.quiet 2\r\nhi\r\n");

            RawClient.Delivery delivery = client.readDelivery();

            assertThat(delivery.text()).isEqualTo("hi");
            client.assertOpen();
        }
    }

    // ------------------------------------------------------------ PING / PONG

    @Test
    void answersPingWithPong() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("PING\r\nPING\r\nping\r\n");

            client.expectLine("PONG");
            client.expectLine("PONG");
            client.expectLine("PONG");
        }
    }

    @Test
    void pingsTheClientAndKeepsAConnectionThatAnswers() {
        server = ServerUnderTest.start(c -> c.pingInterval(Duration.ofMillis(100)).maxPingsOut(2));
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            for (int i = 0; i < 5; i++) { // more pings than maxPingsOut: only unanswered ones count
                client.expectLine("PING");
                client.send("PONG\r\n");
            }
            client.send("SUB pub.alive 1\r\nPUB pub.alive 2\r\nok\r\n");
            String line = client.readLine();
            while (line.equals("PING")) {
                client.send("PONG\r\n");
                line = client.readLine();
            }

            assertThat(client.readDelivery(line).text()).isEqualTo("ok");
            assertThat(server.stats().staleConnections()).isZero();
        }
    }

    @Test
    void closesAConnectionThatStopsAnsweringPingsAsStale() {
        server = ServerUnderTest.start(c -> c.pingInterval(Duration.ofMillis(100)).maxPingsOut(2));
        try (RawClient client = RawClient.connect(server.port());
             RawClient bystander = RawClient.connect(server.port())) {
            client.handshake();
            bystander.handshake();
            // the bystander answers its pings meanwhile, and must stay
            CompletableFuture<Void> answering = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 6; i++) {
                    bystander.expectLine("PING");
                    bystander.send("PONG\r\n");
                }
            });

            List<String> lines = client.readUntilClosed();

            assertThat(lines).containsExactly("PING", "PING", "-ERR 'Stale Connection'");
            answering.join();
            bystander.assertRoundTrip("pub.bystander", true);
            assertThat(server.stats().staleConnections()).isEqualTo(1);
        }
    }

    // ------------------------------------------------------------ bad input that closes

    static Stream<Arguments> closingErrors() {
        return Stream.of(
                Arguments.of("unknown verb", "FOO bar\r\n", ERR_UNKNOWN),
                Arguments.of("verb with a suffix", "PUBX pub.a 1\r\nx\r\n", ERR_UNKNOWN),
                Arguments.of("control line over 4096 bytes without an end",
                        "PUB pub." + "a".repeat(5000), ERR_CONTROL_LINE),
                Arguments.of("control line over 4096 bytes with an end",
                        "SUB pub." + "a".repeat(4100) + " 1\r\n", ERR_CONTROL_LINE),
                Arguments.of("payload over max_payload", "PUB pub.a 1025\r\n", ERR_PAYLOAD),
                Arguments.of("header message over max_payload", "HPUB pub.a 12 2000\r\n", ERR_PAYLOAD),
                Arguments.of("size not a number", "PUB pub.a abc\r\n", ERR_PARSER),
                Arguments.of("negative size", "PUB pub.a -1\r\n", ERR_PARSER),
                Arguments.of("size of ten digits", "PUB pub.a 0000000001\r\nx\r\n", ERR_PARSER),
                Arguments.of("payload longer than announced", "PUB pub.a 3\r\nabcdef\r\n", ERR_PARSER),
                Arguments.of("PUB without arguments", "PUB\r\n", ERR_PARSER),
                Arguments.of("PUB with too many arguments", "PUB pub.a r x 2\r\nhi\r\n", ERR_PARSER),
                Arguments.of("SUB without sid", "SUB pub.a\r\n", ERR_PARSER),
                Arguments.of("header size above total size", "HPUB pub.a 20 10\r\n", ERR_PARSER),
                Arguments.of("UNSUB without sid", "UNSUB\r\n", ERR_PARSER));
        // Accepted, as by nats-server: a header block that does not start with NATS/1.0 (forwarded
        // as is), and an UNSUB max that is not a number (unsubscribes at once).
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("closingErrors")
    void badInputGetsItsErrorAndTheConnectionIsClosed(String what, String input, String error) {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send(input);

            List<String> lines = client.readUntilClosed();

            assertThat(lines).as(what).containsExactly(error);
            assertThat(server.stats().protocolErrors()).isEqualTo(1);
        }
        assertServerStillServes();
    }

    @Test
    void maxPayloadIsTheLimitItselfNotOneBelow() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            byte[] payload = new byte[1024];
            Arrays.fill(payload, (byte) 'p');
            client.send("SUB pub.max 1\r\nPUB pub.max 1024\r\n");
            client.send(payload);
            client.send("\r\n");

            RawClient.Delivery delivery = client.readDelivery();

            assertThat(delivery.payload()).isEqualTo(payload);
            client.send("PUB pub.max 1025\r\n");
            assertThat(client.readUntilClosed()).containsExactly(ERR_PAYLOAD);
        }
    }

    // ------------------------------------------------------------ bad input that keeps the connection

    static Stream<Arguments> recoverableErrors() {
        return Stream.of(
                Arguments.of("publish to a * wildcard", "PUB pub.* 2\r\nhi\r\n", ERR_PUBLISH_SUBJECT),
                Arguments.of("publish to a > wildcard", "PUB pub.> 2\r\nhi\r\n", ERR_PUBLISH_SUBJECT),
                Arguments.of("publish to an empty token", "PUB pub..b 2\r\nhi\r\n", ERR_PUBLISH_SUBJECT),
                Arguments.of("publish to a leading dot", "PUB .pub 2\r\nhi\r\n", ERR_PUBLISH_SUBJECT),
                Arguments.of("header publish to a wildcard", "HPUB pub.* 12 14\r\nNATS/1.0\r\n\r\nhi\r\n",
                        ERR_PUBLISH_SUBJECT),
                Arguments.of("subscribe to an empty token", "SUB pub..b 1\r\n", ERR_SUBJECT),
                Arguments.of("subscribe with > not last", "SUB pub.>.x 1\r\n", ERR_SUBJECT),
                Arguments.of("subscribe to a trailing dot", "SUB pub. 1\r\n", ERR_SUBJECT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("recoverableErrors")
    void invalidSubjectGetsItsErrorAndTheConnectionStaysUsable(String what, String input, String error) {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            // Odd publish subjects are refused only in pedantic mode, as by nats-server.
            client.handshake(error.equals(ERR_PUBLISH_SUBJECT) ? PEDANTIC : NOT_PEDANTIC);
            client.send(input);

            client.expectLine(error);

            client.assertOpen();
            client.assertRoundTrip("pub.after." + server.stats().protocolErrors());
            assertThat(server.stats().protocolErrors()).as(what).isEqualTo(1);
        }
    }

    static Stream<Arguments> permissionErrors() {
        return Stream.of(
                Arguments.of("PUB priv.a 2\r\nhi\r\n", "-ERR 'Permissions Violation for Publish to \"priv.a\"'"),
                Arguments.of("PUB fed.a 2\r\nhi\r\n", "-ERR 'Permissions Violation for Publish to \"fed.a\"'"),
                Arguments.of("HPUB priv.h 12 14\r\nNATS/1.0\r\n\r\nhi\r\n",
                        "-ERR 'Permissions Violation for Publish to \"priv.h\"'"),
                Arguments.of("SUB priv.a 1\r\n", "-ERR 'Permissions Violation for Subscription to \"priv.a\"'"),
                Arguments.of("SUB fed.a q 1\r\n", "-ERR 'Permissions Violation for Subscription to \"fed.a\"'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permissionErrors")
    void publicClientIsRefusedSubjectsAboveItsScopeAndStaysConnected(String input, String error) {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake(NOT_PEDANTIC);
            client.send(input);

            client.expectLine(error);

            client.assertOpen();
            client.assertRoundTrip("pub.still.allowed");
            assertThat(server.stats().permissionViolations()).isEqualTo(1);
        }
    }

    @Test
    void publicWildcardSubscriptionReceivesOnlyPublicSubjects() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB > 1\r\nPING\r\n");
            client.expectLine("PONG");

            server.broker.publish("priv.secret", "no");
            server.broker.publish("fed.partner", "no");
            server.broker.publish("pub.news", "yes");
            server.broker.publish("pub.end", "end");

            assertThat(client.readDelivery().subject()).isEqualTo("pub.news");
            assertThat(client.readDelivery().subject()).isEqualTo("pub.end");
            client.assertOpen();
        }
    }

    // ------------------------------------------------------------ framing

    @Test
    void pipelinedOperationsSplitAcrossTinyWritesAreAllExecutedInOrder() {
        server = ServerUnderTest.start();
        int messages = 60;
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        write(stream, "CONNECT {\"verbose\":false,\"headers\":true}\r\n");
        write(stream, "sub pub.split 1\r\n");              // verbs are case-insensitive
        write(stream, "SUB\tpub.split.h  2\r\n");            // tabs and repeated blanks separate
        for (int i = 0; i < messages; i++) {
            // the payload holds CRLF and protocol words: it is data, never parsed
            String payload = "m" + i + "\r\nPUB x 1\r\n";
            write(stream, "PUB pub.split " + payload.getBytes(StandardCharsets.UTF_8).length + "\r\n" + payload + "\r\n");
        }
        write(stream, "HPUB pub.split.h _INBOX.r1 18 20\r\nNATS/1.0\r\nA: b\r\n\r\nhi\r\n");
        write(stream, "PUB pub.split 0\r\n\r\n");            // an empty payload
        write(stream, "PING\r\n");
        byte[] bytes = stream.toByteArray();

        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine();
            client.sendInChunks(bytes, new int[] {1, 2, 3, 5, 7, 11, 13, 1, 1});

            List<RawClient.Delivery> plain = new ArrayList<>();
            List<RawClient.Delivery> withHeaders = new ArrayList<>();
            int pongs = 0;
            while (plain.size() < messages + 1 || withHeaders.isEmpty() || pongs == 0) {
                String line = client.readLine();
                if (line.equals("PONG")) {
                    pongs++;
                } else {
                    RawClient.Delivery delivery = client.readDelivery(line);
                    (delivery.sid().equals("1") ? plain : withHeaders).add(delivery);
                }
            }

            for (int i = 0; i < messages; i++) {
                assertThat(plain.get(i).subject()).isEqualTo("pub.split");
                assertThat(plain.get(i).text()).isEqualTo("m" + i + "\r\nPUB x 1\r\n");
            }
            assertThat(plain.get(messages).payload()).isEmpty();
            RawClient.Delivery hmsg = withHeaders.get(0);
            assertThat(hmsg.subject()).isEqualTo("pub.split.h");
            assertThat(hmsg.replyTo()).isEqualTo("_INBOX.r1");
            assertThat(hmsg.headers()).isEqualTo("NATS/1.0\r\nA: b\r\n\r\n");
            assertThat(hmsg.text()).isEqualTo("hi");
            assertThat(pongs).isEqualTo(1);
            assertThat(server.stats().messagesIn()).isEqualTo(messages + 2);
            assertThat(server.stats().protocolErrors()).isZero();
        }
    }

    @Test
    void unsubWithMaxDeliversExactlyThatManyMoreMessages() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB pub.max 1\r\nUNSUB 1 3\r\nSUB pub.sentinel 2\r\nPING\r\n");
            client.expectLine("PONG");

            for (int i = 0; i < 5; i++) {
                server.broker.publish("pub.max", "m" + i);
            }
            server.broker.publish("pub.sentinel", "end");

            List<String> received = new ArrayList<>();
            RawClient.Delivery delivery = client.readDelivery();
            while (delivery.sid().equals("1")) {
                received.add(delivery.text());
                delivery = client.readDelivery();
            }
            assertThat(received).containsExactly("m0", "m1", "m2");
            assertThat(delivery.text()).isEqualTo("end");
            assertThat(server.broker.hasSubscribers("pub.max")).isFalse();
        }
    }

    @Test
    void unsubStopsDeliveryAndUnknownSidIsIgnored() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB pub.u 1\r\nSUB pub.sentinel 2\r\nUNSUB 1\r\nUNSUB 99\r\nPING\r\n");
            client.expectLine("PONG");

            server.broker.publish("pub.u", "gone");
            server.broker.publish("pub.sentinel", "end");

            assertThat(client.readDelivery().text()).isEqualTo("end");
            assertThat(server.broker.hasSubscribers("pub.u")).isFalse();
        }
    }

    // ------------------------------------------------------------ isolation

    @Test
    void misbehavingConnectionsNeverDisturbOthersAndTheServerKeepsServing() {
        server = ServerUnderTest.start();
        List<Arguments> badInputs = Stream.concat(closingErrors(), recoverableErrors()).toList();
        try (RawClient subscriber = RawClient.connect(server.port());
             RawClient publisher = RawClient.connect(server.port())) {
            subscriber.handshake();
            publisher.handshake();
            subscriber.send("SUB pub.calm 1\r\nPING\r\n");
            subscriber.expectLine("PONG");

            int sent = 0;
            for (Arguments bad : badInputs) {
                for (int i = 0; i < 5; i++) {
                    publisher.send("PUB pub.calm " + Integer.toString(sent).length() + "\r\n" + sent + "\r\n");
                    sent++;
                }
                String input = (String) bad.get()[1];
                String error = (String) bad.get()[2];
                try (RawClient rogue = RawClient.connect(server.port())) {
                    rogue.handshake("{\"verbose\":false,\"pedantic\":true,\"headers\":true}");
                    rogue.send(input);
                    rogue.expectLine(error);
                }
            }
            publisher.assertOpen();

            for (int i = 0; i < sent; i++) {
                assertThat(subscriber.readDelivery().text()).isEqualTo(Integer.toString(i));
            }
            subscriber.assertOpen();
            assertThat(server.stats().protocolErrors()).isEqualTo(badInputs.size());
        }
        assertServerStillServes();
        Await.until("every connection is closed", () -> server.stats().connections() == 0, () -> server.stats());
    }

    // ------------------------------------------------------------ helpers

    /** A fresh client can connect, subscribe, publish and receive. */
    private void assertServerStillServes() {
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.assertRoundTrip("pub.alive");
        }
    }

    private static void write(ByteArrayOutputStream out, String text) {
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The raw JSON value of a top-level field of an INFO line: a number, true/false, or a quoted string. */
    private static String field(String info, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*(\"[^\"]*\"|[^,}\\s]+)").matcher(info);
        if (!m.find()) {
            throw new AssertionError("INFO has no field " + name + ": " + info);
        }
        return m.group(1);
    }

    private static String stringField(String info, String name) {
        String raw = field(info, name);
        assertThat(raw).as(name + " is a JSON string").startsWith("\"").endsWith("\"");
        return raw.substring(1, raw.length() - 1);
    }
}
