package io.ringbus.server;

import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static io.ringbus.server.MonitorClient.field;
import static io.ringbus.server.MonitorClient.number;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heap every subscription holds is bounded ({@code max_subscription_memory}): 100,000 SUBs of
 * 200-byte subjects (the server's default max_subscriptions) once killed a server with a 128 MiB
 * heap (the hostile harness's subscription-storm). Past the bound a SUB gets {@code -ERR}, is
 * counted, and the connection stays; what is given back (UNSUB, a closed connection) can be
 * taken again.
 */
@Timeout(120)
class SubscriptionMemoryTest {
    private static final String PREFIX = "pub." + "s".repeat(182) + ".";

    @Test
    void subscriptionsPastTheMemoryBoundAreRefusedCountedAndGivenBack() {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.monitorPort(0).maxSubscriptionMemory(1L << 20));
             RawClient storm = RawClient.connect(server.port())) {
            storm.handshake();
            StringBuilder subs = new StringBuilder();
            for (int sid = 1; sid <= 2_000; sid++) {
                subs.append("SUB ").append(PREFIX).append(sid).append(' ').append(sid).append("\r\n");
            }
            storm.send(subs.append("PING\r\n").toString());
            List<String> errors = new ArrayList<>();
            for (String line = storm.readLine(); !line.equals("PONG"); line = storm.readLine()) {
                errors.add(line);
            }
            // 1 MiB at about 1,500 bytes each (400 + twice the ~190-character subject + 240 for each
            // of its 3 tokens): about 700 fit.
            assertThat(errors).hasSizeBetween(2_000 - 720, 2_000 - 680)
                    .allMatch(e -> e.startsWith("-ERR 'maximum subscriptions exceeded: max_subscription_memory=1048576"));
            storm.send("PING\r\n");
            storm.expectLine("PONG"); // still open

            JsonValue ringbus = varz(server);
            assertThat(number(ringbus, "subscriptions_refused")).isEqualTo(errors.size());
            assertThat(number(ringbus, "subscription_memory")).isBetween((1L << 20) - 2_000, 1L << 20);

            // Given back by UNSUB: new ones fit again.
            StringBuilder unsubs = new StringBuilder();
            for (int sid = 1; sid <= 110; sid++) { // their subjects are a few characters shorter
                unsubs.append("UNSUB ").append(sid).append("\r\n");
            }
            for (int sid = 3_001; sid <= 3_100; sid++) {
                unsubs.append("SUB ").append(PREFIX).append(sid).append(' ').append(sid).append("\r\n");
            }
            storm.send(unsubs.append("PING\r\n").toString());
            storm.expectLine("PONG");
        }
    }

    @Test
    void aClosedConnectionGivesBackWhatItsSubscriptionsHeld() {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.monitorPort(0))) {
            try (RawClient client = RawClient.connect(server.port())) {
                client.handshake();
                client.send("SUB pub.b 1\r\nSUB pub.d q 2\r\nPING\r\n");
                client.expectLine("PONG");
                assertThat(number(varz(server), "subscription_memory")).isEqualTo(2 * (400 + 2 * 5 + 2 * 240) + 2);
            }
            io.ringbus.testkit.Await.until("the closed connection's subscriptions given back",
                    () -> number(varz(server), "subscription_memory") == 0, () -> number(varz(server), "subscription_memory"));
        }
    }

    @Test
    void autoUnsubscribedSubscriptionsAreDroppedWithTheirCharge() {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.monitorPort(0));
             RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            StringBuilder loop = new StringBuilder();
            for (int sid = 1; sid <= 5_000; sid++) {
                // A fresh sid each time, ended by its one message: kept until the connection closed, once.
                loop.append("SUB pub.once ").append(sid).append("\r\nUNSUB ").append(sid).append(" 1\r\n")
                        .append("PUB pub.once 0\r\n\r\n");
            }
            client.send(loop.append("PING\r\n").toString());
            int delivered = 0;
            for (String line = client.readLine(); !line.equals("PONG"); line = client.readLine()) {
                if (line.startsWith("MSG ")) {
                    client.readLine(); // the empty payload
                    delivered++;
                }
            }
            assertThat(delivered).isPositive();
            long one = 400 + 2 * "pub.once".length() + 2 * 240;
            // Ended ones are dropped once their notes double: never more than a few hundred held.
            assertThat(number(varz(server), "subscription_memory")).isLessThan(300 * one);
        }
    }

    private static JsonValue varz(ServerUnderTest server) {
        return field(JsonParser.parseUnchecked(new MonitorClient(server.monitorPort()).get("/varz").body()), "ringbus");
    }
}
