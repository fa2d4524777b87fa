package io.ringbus.server;

import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.ringbus.server.MonitorClient.field;
import static io.ringbus.server.MonitorClient.number;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client can make the server keep, compute or reveal through {@code $RB.API.FILTER} is
 * bounded, counted, charged to that client and scoped (issue 25): one test per attack of the
 * issue's table, each of which failed on the code before the fix.
 */
@Timeout(180)
class ContentFilterLimitsTest {
    private static final String PUB_DENIED = "-ERR 'Permissions Violation for Publish to \"%s\"'";

    private ServerUnderTest server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String api(String replyTo, String request) {
        return "PUB $RB.API.FILTER " + replyTo + " " + request.getBytes(StandardCharsets.UTF_8).length + "\r\n"
                + request + "\r\n";
    }

    /** Row 1: thousands of 16 KiB policies on subjects never subscribed; the server once died of OutOfMemoryError. */
    @Test
    void thousandsOfLargeFiltersAreRefusedPastTheConnectionsLimitAndASmallHeapStaysUp() {
        String large = "x".repeat(16_000);
        try (ForkedServer forked = ForkedServer.start("64m");
             RawClient attacker = RawClient.connect(forked.port())) {
            attacker.handshake();
            attacker.send("SUB _INBOX.a 1\r\n");
            int accepted = 0;
            String lastRefusal = null;
            for (int i = 0; i < 3_000; i++) {
                // Each a policy of ~16 KiB, for a subject the client never subscribes to.
                attacker.send(api("_INBOX.a", "{\"subject\":\"never." + i + "\",\"headers\":{\"k\":[\"" + large + "\"]}}"));
                String reply = attacker.readDelivery().text();
                if (reply.startsWith("{\"error\":")) {
                    lastRefusal = reply;
                } else {
                    accepted++;
                }
            }
            // Default max_filter_bytes (256 KiB) holds 16 of them; every later one is refused, the connection kept.
            assertThat(accepted).isEqualTo(16);
            assertThat(lastRefusal).startsWith("{\"error\":{\"code\":400,").contains("max_filter_bytes=262144");
            attacker.assertOpen();
            assertThat(forked.isAlive()).isTrue();
            try (RawClient healthy = RawClient.connect(forked.port())) {
                healthy.handshake();
                healthy.assertRoundTrip("health.check");
            }
            JsonValue ringbus = field(JsonParser.parseUnchecked(forked.monitor("/varz").body()), "ringbus");
            assertThat(number(ringbus, "filters_refused")).isEqualTo(3_000 - 16);
            assertThat(number(ringbus, "filter_bytes")).isBetween(16L * 16_000, 262_144L);
            assertThat(forked.log()).noneMatch(line -> line.contains("OutOfMemoryError"));
        }
    }

    /** The count limit covers filters set by subject and attached by sid; removing one frees its place. */
    @Test
    void maxFiltersCountsSubjectAndSidFiltersAndARemovedOneFreesItsPlace() {
        server = ServerUnderTest.start(c -> c.monitorPort(0).maxFilters(3));
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB _INBOX.a 1\r\nSUB pub.x 2\r\n");
            String policy = ",\"headers\":{\"region\":[\"eu\"]}}";
            client.send(api("_INBOX.a", "{\"subject\":\"pub.a\"" + policy));
            client.send(api("_INBOX.a", "{\"subject\":\"pub.b\"" + policy));
            client.send(api("_INBOX.a", "{\"sid\":\"2\"" + policy));
            client.send(api("_INBOX.a", "{\"subject\":\"pub.c\"" + policy));
            List<String> replies = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                replies.add(client.readDelivery().text());
            }
            assertThat(replies.subList(0, 3)).noneMatch(r -> r.contains("\"error\""));
            assertThat(replies.get(3)).isEqualTo("{\"error\":{\"code\":400,\"description\":\"filter limit reached: "
                    + "this connection holds 3 filters (max_filters=3)\"}}");
            // UNSUB lets the sid's filter go; the refused subject now fits.
            client.send("UNSUB 2\r\n" + api("_INBOX.a", "{\"subject\":\"pub.c\"" + policy));
            assertThat(client.readDelivery().text()).startsWith("{\"subject\":\"pub.c\",");
            client.assertOpen();
        }
        JsonValue varz = new MonitorClient(server.monitorPort()).json("/varz");
        assertThat(number(field(varz, "ringbus"), "filters_refused")).isEqualTo(1);
    }

    /**
     * Row 2: one body filter and 2,000 subscriptions on a subject; each copy once read the 64 KB
     * body again (40,000 reads for 20 messages). Now one test per message.
     */
    @Test
    void twoThousandSubscriptionsWithOneBodyFilterCostOneEvaluationPerMessage() {
        server = ServerUnderTest.start(c -> c.monitorPort(0).maxPayload(1 << 20));
        StringBuilder json = new StringBuilder("{\"tier\":\"silver\",\"lines\":[");
        while (json.length() < 64_000) {
            json.append("{\"sku\":\"BOOK-12\",\"qty\":1},");
        }
        byte[] body = json.append("{\"sku\":\"PEN\",\"qty\":4}]}").toString().getBytes(StandardCharsets.UTF_8);
        try (RawClient subscriber = RawClient.connect(server.port());
             RawClient producer = RawClient.connect(server.port())) {
            subscriber.handshake();
            producer.handshake();
            subscriber.send("SUB _INBOX.s 0\r\n" + api("_INBOX.s", "{\"subject\":\"pub.orders.big\",\"body\":{\"tier\":[\"gold\"]}}"));
            assertThat(subscriber.readDelivery().text()).contains("\"applied\":0");
            StringBuilder subs = new StringBuilder();
            for (int i = 1; i <= 2_000; i++) {
                subs.append("SUB pub.orders.big ").append(i).append("\r\n");
            }
            subscriber.send(subs.toString());
            subscriber.assertOpen();
            long before = evaluations();
            byte[] pub = ("PUB pub.orders.big " + body.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < 20; i++) {
                producer.send(pub);
                producer.send(body);
                producer.send("\r\n");
            }
            producer.assertOpen();
            assertThat(evaluations() - before).isEqualTo(20);
            subscriber.assertOpen(); // nothing was delivered: PONG is the next line
        }
    }

    private long evaluations() {
        JsonValue varz = new MonitorClient(server.monitorPort()).json("/varz");
        return number(field(varz, "ringbus"), "filter_evaluations");
    }

    /** Row 3: the API subject is a publish; with {@code publish.deny=>} the answer once went to any subject. */
    @Test
    void publishPermissionsRefuseTheApiSubjectAndNothingIsDelivered() {
        server = ServerUnderTest.start(c -> c.token("root", Scope.ROOT).user("alice", "pw", Scope.PRIVATE)
                .permissions("alice", Permissions.builder().publishDeny(">").build())
                .user("bob", "pw", Scope.PRIVATE)
                .permissions("bob", Permissions.builder().publishAllow("$RB.API.>", "_INBOX.>").build()));
        try (RawClient victim = RawClient.connect(server.port());
             RawClient alice = RawClient.connect(server.port());
             RawClient bob = RawClient.connect(server.port())) {
            victim.handshake("{\"verbose\":false,\"pedantic\":false,\"auth_token\":\"root\"}");
            victim.send("SUB victim.subj 1\r\n");
            victim.assertOpen();
            alice.handshake("{\"verbose\":false,\"pedantic\":false,\"user\":\"alice\",\"pass\":\"pw\"}");
            alice.send(api("victim.subj", "{\"subject\":\"orders\"}"));
            alice.expectLine(PUB_DENIED.formatted("$RB.API.FILTER"));
            alice.assertOpen();
            // Allowed to ask, but not to publish where the answer would go: refused, named by the reply.
            bob.handshake("{\"verbose\":false,\"pedantic\":false,\"user\":\"bob\",\"pass\":\"pw\"}");
            bob.send(api("victim.subj", "{\"subject\":\"orders\"}"));
            bob.expectLine(PUB_DENIED.formatted("victim.subj"));
            bob.send("SUB _INBOX.b 1\r\n" + api("_INBOX.b", "{\"subject\":\"orders\"}"));
            assertThat(bob.readDelivery().text()).isEqualTo("{\"subject\":\"orders\",\"filter\":null,\"applied\":0}");
            victim.assertOpen(); // nothing was delivered to victim.subj
        }
        assertThat(server.stats().permissionViolations()).isEqualTo(2);
    }

    /** Row 4: a reply above the client's scope once closed the connection without a word. */
    @Test
    void aReplyAboveTheClientsScopeGetsAnErrAndTheConnectionStays() {
        server = ServerUnderTest.start();
        try (RawClient publicClient = RawClient.connect(server.port())) {
            publicClient.handshake("{\"verbose\":false,\"pedantic\":false}");
            // As a plain PUB with that reply is answered:
            publicClient.send("PUB pub.x priv.feed 2\r\nhi\r\n");
            publicClient.expectLine(PUB_DENIED.formatted("priv.feed"));
            publicClient.send(api("priv.feed", "{\"subject\":\"pub.orders\"}"));
            publicClient.expectLine(PUB_DENIED.formatted("priv.feed"));
            publicClient.assertOpen();
            publicClient.assertRoundTrip("pub.still.here");
        }
        try (RawClient requester = RawClient.connect(server.port())) {
            requester.handshake(); // no_responders: a request nobody can answer is not routed, but checked alike
            requester.send("PUB pub.nobody priv.feed 2\r\nhi\r\n");
            requester.expectLine(PUB_DENIED.formatted("priv.feed"));
            requester.send(api("priv.feed", "{\"subject\":\"pub.orders\"}"));
            requester.expectLine(PUB_DENIED.formatted("priv.feed"));
            requester.assertOpen();
        }
        assertThat(server.stats().permissionViolations()).isEqualTo(4);
    }

    /** Row 5: {@code UNSUB 1 2} then a filter on sid 1 once delivered 6 messages instead of 2. */
    @Test
    void attachingAFilterToASidKeepsItsAutoUnsubscribeLimit() {
        server = ServerUnderTest.start();
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake();
            client.send("SUB pub.n 1\r\nSUB _INBOX.r 2\r\nUNSUB 1 2\r\n");
            client.send(api("_INBOX.r", "{\"sid\":\"1\",\"body\":{\"n\":[{\"exists\":true}]}}"));
            assertThat(client.readDelivery().text()).endsWith("\"applied\":1}");
            for (int i = 0; i < 6; i++) {
                String body = "{\"n\":" + i + "}";
                client.send("PUB pub.n " + body.length() + "\r\n" + body + "\r\n");
            }
            client.send("PING\r\n");
            List<String> got = new ArrayList<>();
            for (String line = client.readLine(); !line.equals("PONG"); line = client.readLine()) {
                got.add(client.readDelivery(line).text());
            }
            assertThat(got).containsExactly("{\"n\":0}", "{\"n\":1}");
        }
    }
}
