package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.ringbus.core.DropReason;
import io.ringbus.core.MessageFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.ringbus.server.MonitorClient.array;
import static io.ringbus.server.MonitorClient.find;
import static io.ringbus.server.MonitorClient.number;
import static io.ringbus.server.MonitorClient.string;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Content filters for network subscriptions through {@code $RB.API.FILTER}, with the jnats client
 * unchanged: a plain request before (or after) a plain SUB.
 */
@Timeout(60)
class ContentFilterApiTest {
    private static final String EU_OVER_100 = "{\"region\":[\"eu\"],\"amount\":[{\"numeric\":[\">\",100]}]}";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private ServerUnderTest server;
    private Connection nc;

    @BeforeEach
    void start() throws Exception {
        server = ServerUnderTest.start(c -> c.monitorPort(0));
        nc = Nats.connect(server.url());
    }

    @AfterEach
    void stop() throws Exception {
        nc.close();
        server.close();
    }

    private String filter(String json) throws Exception {
        Message reply = nc.request("$RB.API.FILTER", json.getBytes(StandardCharsets.UTF_8), WAIT);
        return new String(reply.getData(), StandardCharsets.UTF_8);
    }

    private void order(String subject, String region, int amount) {
        Headers headers = new Headers().add("region", region).add("amount", String.valueOf(amount));
        nc.publish(NatsMessage.builder().subject(subject).headers(headers)
                .data(region + ":" + amount, StandardCharsets.UTF_8).build());
    }

    private static List<String> drain(Subscription sub) throws InterruptedException {
        List<String> got = new ArrayList<>();
        for (Message m = sub.nextMessage(Duration.ofMillis(500)); m != null; m = sub.nextMessage(Duration.ofMillis(300))) {
            got.add(new String(m.getData(), StandardCharsets.UTF_8));
        }
        return got;
    }

    @Test
    void aFilterSetBeforeSubscribingDeliversOnlyWhatThePolicyTakesAndShowsInSubsz() throws Exception {
        String reply = filter("{\"subject\":\"pub.orders\",\"headers\":" + EU_OVER_100 + "}");
        String normalized = MessageFilter.headers(EU_OVER_100).text();
        assertThat(reply).isEqualTo("{\"subject\":\"pub.orders\",\"filter\":" + quoted(normalized) + ",\"applied\":0}");
        Subscription sub = nc.subscribe("pub.orders");
        // Another subject (a wildcard that covers it): not filtered.
        Subscription all = nc.subscribe("pub.*");
        nc.flush(WAIT);
        order("pub.orders", "eu", 150);
        order("pub.orders", "us", 150);
        order("pub.orders", "eu", 50);
        order("pub.orders", "eu", 101);
        nc.flush(WAIT);
        assertThat(drain(sub)).containsExactly("eu:150", "eu:101");
        assertThat(drain(all)).hasSize(4);

        var subsz = new MonitorClient(server.monitorPort()).json("/subsz?subs=1");
        var listed = find(array(subsz, "subscriptions_list"), "subject", "pub.orders");
        assertThat(string(listed, "filter")).isEqualTo(normalized);
        assertThat(number(listed, "filtered")).isEqualTo(2);
    }

    @Test
    void aFilterOnAnExistingSubscriptionRemakesItAndAnEmptyRequestRemovesIt() throws Exception {
        Subscription sub = nc.subscribe("pub.orders");
        nc.flush(WAIT);
        assertThat(filter("{\"subject\":\"pub.orders\",\"headers\":{\"region\":[\"eu\"]}}")).endsWith("\"applied\":1}");
        order("pub.orders", "us", 1);
        order("pub.orders", "eu", 2);
        nc.flush(WAIT);
        assertThat(drain(sub)).containsExactly("eu:2");
        assertThat(filter("{\"subject\":\"pub.orders\"}"))
                .isEqualTo("{\"subject\":\"pub.orders\",\"filter\":null,\"applied\":1}");
        order("pub.orders", "us", 3);
        nc.flush(WAIT);
        assertThat(drain(sub)).containsExactly("us:3");
    }

    @Test
    void aFilterNamedBySidAppliesToThatSubscriptionOnly() {
        // jnats does not expose its sids: a client that knows them, here the raw protocol.
        try (RawClient raw = RawClient.connect(server.port())) {
            raw.handshake();
            raw.send("SUB pub.orders 7\r\nSUB pub.orders 8\r\nSUB _INBOX.raw 9\r\n");
            String request = "{\"sid\":\"7\",\"body\":{\"total\":[{\"numeric\":[\">=\",100]}]}}";
            raw.send("PUB $RB.API.FILTER _INBOX.raw " + request.length() + "\r\n" + request + "\r\n");
            RawClient.Delivery reply = raw.readDelivery();
            assertThat(reply.sid()).isEqualTo("9");
            assertThat(reply.text()).startsWith("{\"sid\":\"7\",\"filter\":\"body ").endsWith("\"applied\":1}");
            for (String body : List.of("{\"total\":250}", "{\"total\":99.5}", "not json")) {
                raw.send("PUB pub.orders " + body.length() + "\r\n" + body + "\r\n");
            }
            raw.send("PING\r\n");
            List<String> seven = new ArrayList<>();
            List<String> eight = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                RawClient.Delivery d = raw.readDelivery();
                (d.sid().equals("7") ? seven : eight).add(d.text());
            }
            raw.expectLine("PONG");
            assertThat(seven).containsExactly("{\"total\":250}");
            assertThat(eight).containsExactly("{\"total\":250}", "{\"total\":99.5}", "not json");
        }
    }

    @Test
    @SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the test declares it
    void queueGroupMembersOnTwoConnectionsEachGetWhatTheirFilterTakes() throws Exception {
        try (Connection other = Nats.connect(server.url())) {
            filter("{\"subject\":\"pub.work\",\"queue\":\"q\",\"headers\":{\"region\":[\"eu\"]}}");
            Message reply = other.request("$RB.API.FILTER",
                    "{\"subject\":\"pub.work\",\"queue\":\"q\",\"headers\":{\"region\":[\"us\"]}}"
                            .getBytes(StandardCharsets.UTF_8), WAIT);
            assertThat(new String(reply.getData(), StandardCharsets.UTF_8)).contains("\"queue\":\"q\"");
            Subscription eu = nc.subscribe("pub.work", "q");
            Subscription us = other.subscribe("pub.work", "q");
            nc.flush(WAIT);
            other.flush(WAIT);
            for (int i = 0; i < 30; i++) {
                order("pub.work", i % 3 == 0 ? "eu" : i % 3 == 1 ? "us" : "ap", i);
            }
            nc.flush(WAIT); // all routed; then other's PONG comes after what was queued for it
            other.flush(WAIT);
            assertThat(drain(eu)).hasSize(10).allSatisfy(p -> assertThat(p).startsWith("eu:"));
            assertThat(drain(us)).hasSize(10).allSatisfy(p -> assertThat(p).startsWith("us:"));
            // Ten "ap" messages no member takes: counted, not silently lost.
            assertThat(server.broker.stats().dropped().get(DropReason.FILTERED_BY_EVERY_MEMBER))
                    .isEqualTo(10);
        }
    }

    @Test
    void aBadRequestGetsAnErrorNamingTheBadPartAndChangesNothing() throws Exception {
        Subscription sub = nc.subscribe("pub.orders");
        nc.flush(WAIT);
        assertThat(filter("{\"subject\":\"pub.orders\",\"headers\":{\"region\":[{\"prefixx\":\"e\"}]}}"))
                .startsWith("{\"error\":{\"code\":400,\"description\":\"")
                .contains("prefixx").contains("$.region[0]");
        assertThat(filter("{\"subject\":\"pub.orders\",\"colour\":\"red\"}"))
                .contains("unknown field \\\"colour\\\"");
        assertThat(filter("{\"headers\":{\"a\":[\"b\"]}}")).contains("must name a \\\"subject\\\" or a \\\"sid\\\"");
        assertThat(filter("{\"sid\":\"999\",\"headers\":{\"a\":[\"b\"]}}")).contains("no subscription with sid");
        assertThat(filter("[1,2]")).contains("must be a JSON object");
        Message unknown = nc.request("$RB.API.NOPE", new byte[0], WAIT);
        assertThat(new String(unknown.getData(), StandardCharsets.UTF_8))
                .isEqualTo("{\"error\":{\"code\":404,\"description\":\"unknown ringbus API subject: $RB.API.NOPE\"}}");
        order("pub.orders", "us", 1);
        nc.flush(WAIT);
        assertThat(drain(sub)).containsExactly("us:1");
    }

    private static String quoted(String json) {
        return '"' + json.replace("\"", "\\\"") + '"';
    }
}
