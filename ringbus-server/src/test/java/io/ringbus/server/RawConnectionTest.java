package io.ringbus.server;

import io.ringbus.testkit.Await;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection's life on the wire, spoken by a plain socket: authentication and its timeout,
 * the connection limit, clients that vanish mid-operation, and the counters that account for
 * all of it.
 */
@Timeout(30)
class RawConnectionTest {
    @AutoClose
    private ServerUnderTest server;

    // ------------------------------------------------------------ authentication

    @Test
    void wrongTokenIsAnAuthorizationViolationAndCloses() {
        server = ServerUnderTest.start(c -> c.token("s3cret", Scope.FEDERATED));
        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine();
            client.send("CONNECT {\"auth_token\":\"s3cre\"}\r\nPING\r\n");

            assertThat(client.readUntilClosed()).containsExactly("-ERR 'Authorization Violation'");
            assertThat(server.stats().authFailures()).isEqualTo(1);
        }
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake("{\"verbose\":false,\"auth_token\":\"s3cret\"}");
            client.assertRoundTrip("fed.ok");
        }
    }

    @Test
    void wrongPasswordOrUnknownUserIsAnAuthorizationViolation() {
        server = ServerUnderTest.start(c -> c.user("alice", "pw", Scope.PRIVATE));
        for (String connect : List.of("{\"user\":\"alice\",\"pass\":\"pW\"}", "{\"user\":\"bob\",\"pass\":\"pw\"}",
                "{\"user\":\"alice\"}", "{}")) {
            try (RawClient client = RawClient.connect(server.port())) {
                client.readLine();
                client.send("CONNECT " + connect + "\r\nPING\r\n");

                assertThat(client.readUntilClosed()).as(connect).containsExactly("-ERR 'Authorization Violation'");
            }
        }
        assertThat(server.stats().authFailures()).isEqualTo(4);
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake("{\"verbose\":false,\"user\":\"alice\",\"pass\":\"pw\"}");
            client.assertRoundTrip("priv.ok");
        }
    }

    @Test
    void operationsBeforeConnectAreRefusedWhenAuthIsRequired() {
        server = ServerUnderTest.start(c -> c.token("s3cret", Scope.FEDERATED));
        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine();
            client.send("SUB pub.a 1\r\n");

            assertThat(client.readUntilClosed()).containsExactly("-ERR 'Authorization Violation'");
        }
    }

    @Test
    void noConnectWithinTheAuthTimeoutCloses() {
        server = ServerUnderTest.start(c -> c.token("s3cret", Scope.FEDERATED).authTimeout(Duration.ofMillis(200)));
        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine();

            assertThat(client.readUntilClosed()).containsExactly("-ERR 'Authentication Timeout'");
            assertThat(server.stats().authFailures()).isEqualTo(1);
        }
    }

    // ------------------------------------------------------------ limits

    @Test
    void refusesConnectionsOverMaxConnectionsAndAcceptsAgainWhenOneLeaves() {
        server = ServerUnderTest.start(c -> c.maxConnections(2));
        RawClient first = RawClient.connect(server.port());
        try (RawClient second = RawClient.connect(server.port())) {
            first.handshake();
            second.handshake();

            try (RawClient third = RawClient.connect(server.port())) {
                assertThat(third.readUntilClosed()).contains("-ERR 'maximum connections exceeded'")
                        .doesNotContain("PONG");
            }
            assertThat(server.stats().rejectedConnections()).isEqualTo(1);

            first.close();
            Await.until("the first connection is gone", () -> server.stats().connections() == 1,
                    () -> server.stats());
            try (RawClient fourth = RawClient.connect(server.port())) {
                fourth.handshake();
                fourth.assertRoundTrip("pub.fourth");
            }
            second.assertOpen();
        } finally {
            first.close();
        }
    }

    @Test
    void subscriptionsOverTheLimitAreRefusedAndTheConnectionStays() {
        server = ServerUnderTest.start(c -> c.maxSubscriptions(3));
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB pub.a 1\r\nSUB pub.b 2\r\nSUB pub.c 3\r\nSUB pub.d 4\r\n");

            client.expectLine("-ERR 'maximum subscriptions exceeded'");
            client.assertOpen();
            assertThat(server.broker.hasSubscribers("pub.d")).isFalse();

            client.send("UNSUB 1\r\n");
            client.assertRoundTrip("pub.d"); // room again after an UNSUB
        }
    }

    // ------------------------------------------------------------ clients that vanish

    @Test
    void clientVanishingInTheMiddleOfAMessageLeavesNoTrace() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB pub.gone 1\r\nPUB pub.gone 100\r\nonly part of the payload");
        }

        Await.until("the connection is counted as gone", () -> server.stats().connections() == 0,
                () -> server.stats());
        assertThat(server.stats().messagesIn()).as("a half-received message is not published").isZero();
        Await.until("its subscription is removed", () -> !server.broker.hasSubscribers("pub.gone"));
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.assertRoundTrip("pub.gone");
        }
    }

    @Test
    void subscriptionsOfAClosedConnectionAreRemovedFromTheBroker() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB pub.a 1\r\nSUB pub.b q 2\r\nSUB pub.> 3\r\nPING\r\n");
            client.expectLine("PONG");
            assertThat(server.broker.hasSubscribers("pub.a")).isTrue();
            assertThat(server.broker.hasSubscribers("pub.b")).isTrue();
        }

        Await.until("every subscription of the closed connection is gone",
                () -> !server.broker.hasSubscribers("pub.a") && !server.broker.hasSubscribers("pub.b")
                        && !server.broker.hasSubscribers("pub.c"));
        // publishing to the subjects now reaches nobody and harms nothing
        server.broker.publish("pub.a", "nobody");
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.assertRoundTrip("pub.a");
        }
    }

    // ------------------------------------------------------------ counters

    @Test
    void countersAccountForConnectionsMessagesAndBytes() {
        server = ServerUnderTest.start();
        String input = "CONNECT {\"verbose\":false}\r\nSUB pub.count 1\r\nPUB pub.count 5\r\nhello\r\n"
                + "PUB pub.count 3\r\nbye\r\nPING\r\n";
        try (RawClient client = RawClient.connect(server.port())) {
            client.readLine();
            client.send(input);
            int received = 0;
            int pongs = 0;
            while (received < 2 || pongs == 0) {
                String line = client.readLine();
                if (line.equals("PONG")) {
                    pongs++;
                } else {
                    client.readDelivery(line);
                    received++;
                }
            }

            ServerStats stats = server.stats();
            assertThat(stats.connections()).isEqualTo(1);
            assertThat(stats.totalConnections()).isEqualTo(1);
            assertThat(stats.messagesIn()).isEqualTo(2);
            assertThat(stats.messagesOut()).isEqualTo(2);
            assertThat(stats.bytesIn()).isEqualTo(input.getBytes(StandardCharsets.UTF_8).length);
            int msgBytes = "MSG pub.count 1 5\r\nhello\r\nMSG pub.count 1 3\r\nbye\r\n".length();
            assertThat(stats.bytesOut()).as("bytes written, at least the two MSGs").isGreaterThanOrEqualTo(msgBytes);
            assertThat(stats.protocolErrors() + stats.permissionViolations() + stats.authFailures()
                    + stats.slowConsumers() + stats.staleConnections() + stats.rejectedConnections()).isZero();
        }
        Await.until("the connection is counted as gone", () -> server.stats().connections() == 0,
                () -> server.stats());
        assertThat(server.stats().totalConnections()).isEqualTo(1);
    }
}
