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
            // 1 MiB at about 1,150 bytes each (768 + twice the ~190-character subject): about 910 fit.
            assertThat(errors).hasSizeBetween(2_000 - 950, 2_000 - 880)
                    .allMatch(e -> e.startsWith("-ERR 'maximum subscriptions exceeded: max_subscription_memory=1048576"));
            storm.send("PING\r\n");
            storm.expectLine("PONG"); // still open

            JsonValue ringbus = varz(server);
            assertThat(number(ringbus, "subscriptions_refused")).isEqualTo(errors.size());
            assertThat(number(ringbus, "subscription_memory")).isBetween((1L << 20) - 2_000, 1L << 20);

            // Given back by UNSUB: as many new ones fit again.
            StringBuilder unsubs = new StringBuilder();
            for (int sid = 1; sid <= 100; sid++) {
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
                assertThat(number(varz(server), "subscription_memory")).isEqualTo(2 * 768 + 2 * 5 + 2 * 5 + 2);
            }
            io.ringbus.testkit.Await.until("the closed connection's subscriptions given back",
                    () -> number(varz(server), "subscription_memory") == 0, () -> number(varz(server), "subscription_memory"));
        }
    }

    private static JsonValue varz(ServerUnderTest server) {
        return field(JsonParser.parseUnchecked(new MonitorClient(server.monitorPort()).get("/varz").body()), "ringbus");
    }
}
