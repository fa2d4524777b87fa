package io.ringbus.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The protocol as nats-server speaks it, byte for byte: what a real client could notice
 * (issue 9's table), each case checked with raw bytes.
 */
@Timeout(60)
class ByteExactProtocolTest {
    private static final String NOT_PEDANTIC = "{\"verbose\":false,\"pedantic\":false,\"headers\":true}";
    private static final String PEDANTIC = "{\"verbose\":false,\"pedantic\":true,\"headers\":true}";
    private static final String NO_HEADERS = "{\"verbose\":false,\"pedantic\":false}";

    @Test
    void publishSubjectsWithEmptyTokensOrWildcardsAreAcceptedUnlessPedantic() {
        try (ServerUnderTest server = ServerUnderTest.start();
             RawClient sub = RawClient.connect(server.port());
             RawClient pub = RawClient.connect(server.port())) {
            server.broker.registerSubject(">", io.ringbus.core.Scope.PUBLIC);
            sub.handshake(NOT_PEDANTIC);
            sub.send("SUB orders.*.created 1\r\nSUB a.* 2\r\nSUB a.> 3\r\nPING\r\n");
            sub.expectLine("PONG");
            pub.handshake(NOT_PEDANTIC);
            // Subjects built from data: nats.go and nats.c treat an -ERR here as fatal.
            pub.send("PUB orders..created 1\r\nx\r\nPUB a.* 1\r\ny\r\nPUB a.> 1\r\nz\r\nPING\r\n");
            pub.expectLine("PONG");
            sub.send("PING\r\n");
            java.util.List<String> got = new java.util.ArrayList<>();
            for (String line = sub.readLine(); !line.equals("PONG"); line = sub.readLine()) {
                RawClient.Delivery d = sub.readDelivery(line);
                got.add(d.subject() + "/" + d.sid() + "=" + d.text());
            }
            // As nats-server: an empty token reaches nobody; a '*' or '>' token is matched by '*' and '>'.
            assertThat(got).containsExactlyInAnyOrder("a.*/2=y", "a.*/3=y", "a.>/2=z", "a.>/3=z");
            pub.assertOpen();

            try (RawClient pedantic = RawClient.connect(server.port())) {
                pedantic.handshake(PEDANTIC);
                pedantic.send("PUB orders..created 1\r\nx\r\nPING\r\n");
                assertThat(pedantic.readLine()).isEqualTo("-ERR 'Invalid Publish Subject'");
            }
        }
    }

    @Test
    void headerBlocksAreForwardedExactlyAsReceived() {
        try (ServerUnderTest server = ServerUnderTest.start();
             RawClient sub = RawClient.connect(server.port());
             RawClient pub = RawClient.connect(server.port())) {
            sub.handshake();
            sub.send("SUB pub.h 1\r\nPING\r\n");
            sub.expectLine("PONG");
            pub.handshake();
            String[] blocks = {"NATS/1.0 503\r\n\r\n", "NATS/1.0\r\n\r\n", "NATS/1.0\r\nK:v\r\n\r\n",
                "NATS/1.0 408 Request Timeout\r\nA:  spaced  \r\nA: twice\r\n\r\n"};
            for (String block : blocks) {
                int size = block.length() + 2;
                pub.send("HPUB pub.h " + block.length() + " " + size + "\r\n" + block + "hi\r\n");
            }
            pub.send("PING\r\n");
            pub.expectLine("PONG");
            for (String block : blocks) {
                RawClient.Delivery d = sub.readDelivery();
                assertThat(d.headers()).as("the header block as sent").isEqualTo(block);
                assertThat(d.text()).isEqualTo("hi");
            }
        }
    }

    @Test
    void aClientThatDidNotAnnounceHeadersGetsMsgWithThePayloadOnly() {
        try (ServerUnderTest server = ServerUnderTest.start();
             RawClient sub = RawClient.connect(server.port());
             RawClient pub = RawClient.connect(server.port())) {
            sub.handshake(NO_HEADERS);
            sub.send("SUB pub.h 1\r\nPING\r\n");
            sub.expectLine("PONG");
            pub.handshake();
            String block = "NATS/1.0\r\nK: v\r\n\r\n";
            pub.send("HPUB pub.h " + block.length() + " " + (block.length() + 5) + "\r\n" + block + "hello\r\nPING\r\n");
            pub.expectLine("PONG");
            assertThat(sub.readLine()).isEqualTo("MSG pub.h 1 5");
            assertThat(sub.readLine()).isEqualTo("hello");
        }
    }

    @Test
    void pipelinedSubPubUnsubDeliversTheConnectionsOwnMessage() {
        try (ServerUnderTest server = ServerUnderTest.start();
             RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB pub.s 1\r\nPUB pub.s 2\r\nhi\r\nUNSUB 1\r\nPING\r\n");
            RawClient.Delivery d = client.readDelivery();
            assertThat(d.subject()).isEqualTo("pub.s");
            assertThat(d.text()).isEqualTo("hi");
            client.expectLine("PONG");
        }
    }

    @Test
    void subjectsAreBytesSoInvalidUtf8NeverAliases() {
        try (ServerUnderTest server = ServerUnderTest.start(b -> b.defaultScope(io.ringbus.core.Scope.PUBLIC), c -> c);
             RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            ByteArrayOutputStream ops = new ByteArrayOutputStream();
            ops.writeBytes(bytes("SUB a."));
            ops.write(0xfe);
            ops.writeBytes(bytes(" 1\r\nPUB a."));
            ops.write(0xff);
            ops.writeBytes(bytes(" 5\r\nwrong\r\nPUB a."));
            ops.write(0xfe);
            ops.writeBytes(bytes(" 5\r\nright\r\nPING\r\n"));
            client.send(ops.toByteArray());
            RawClient.Delivery d = client.readDelivery();
            assertThat(d.text()).as("only the subject with the same bytes").isEqualTo("right");
            client.expectLine("PONG");
        }
    }

    @Test
    void noRespondersAboveTheClientsScopeIsAPermissionsViolation() {
        try (ServerUnderTest server = ServerUnderTest.start();
             RawClient client = RawClient.connect(server.port())) {
            client.handshake("{\"verbose\":false,\"pedantic\":false,\"headers\":true,\"no_responders\":true}");
            client.send("SUB _INBOX.x.* 1\r\nPUB secret.thing _INBOX.x.1 2\r\nhi\r\nPING\r\n");
            assertThat(client.readLine()).isEqualTo("-ERR 'Permissions Violation for Publish to \"secret.thing\"'");
            client.expectLine("PONG");
            assertThat(server.stats().permissionViolations()).isEqualTo(1);
            // Within its scope, no responders is still the 503 status message.
            client.send("PUB pub.nobody _INBOX.x.2 2\r\nhi\r\nPING\r\n");
            RawClient.Delivery d = client.readDelivery();
            assertThat(d.headers()).startsWith("NATS/1.0 503");
            client.expectLine("PONG");
        }
    }

    @Test
    void aRefusedConnectionGetsInfoBeforeTheError() {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.maxConnections(1));
             RawClient first = RawClient.connect(server.port())) {
            first.handshake(); // accepted and counted before the second one connects
            RawClient second = RawClient.connect(server.port());
            assertThat(second.readLine()).startsWith("INFO {");
            assertThat(second.readLine()).isEqualTo("-ERR 'maximum connections exceeded'");
            second.close();
        }
    }

    @Test
    void aLargePublishToNobodyIsAcknowledgedAndOneAboveTheScopeStillRefused() {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.maxPayload(4096));
             RawClient client = RawClient.connect(server.port())) {
            client.handshake("{\"verbose\":true,\"pedantic\":false,\"headers\":true}");
            String big = "x".repeat(1000);
            client.send("PUB pub.nobody 1000\r\n" + big + "\r\n");
            client.expectLine("+OK");
            client.send("PUB secret.big 1000\r\n" + big + "\r\n");
            client.expectLine("-ERR 'Permissions Violation for Publish to \"secret.big\"'");
            client.send("SUB pub.nobody 1\r\n");
            client.expectLine("+OK");
            client.send("PUB pub.nobody 1000\r\n" + big + "\r\n");
            client.expectLine("+OK");
            assertThat(client.readDelivery().text()).isEqualTo(big);
            assertThat(server.stats().messagesIn()).as("both accepted publishes counted").isEqualTo(2);
            assertThat(server.stats().permissionViolations()).isEqualTo(1);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
