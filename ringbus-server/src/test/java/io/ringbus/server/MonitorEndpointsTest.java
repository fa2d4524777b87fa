package io.ringbus.server;

import io.ringbus.testkit.Await;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.support.JsonValue;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.server.monitor.BlockedHandlerLog;
import io.ringbus.server.monitor.MonitorSources;
import io.ringbus.server.monitor.OutboxBacklog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.ringbus.server.MonitorClient.array;
import static io.ringbus.server.MonitorClient.field;
import static io.ringbus.server.MonitorClient.find;
import static io.ringbus.server.MonitorClient.number;
import static io.ringbus.server.MonitorClient.string;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The monitoring port's JSON endpoints after known traffic from real jnats clients: three
 * connections, five subscriptions, 1,000 messages of 100 bytes each received by two
 * subscribers, so every count is exact.
 */
@Timeout(60)
class MonitorEndpointsTest {
    private static final int MESSAGES = 1_000;
    private static final int SIZE = 100;

    private final List<Connection> clients = new ArrayList<>();
    private ServerUnderTest server;

    @AfterEach
    void close() throws InterruptedException {
        for (Connection client : clients) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void varzConnzAndSubszReportExactCountsAfterKnownTraffic() throws Exception {
        server = ServerUnderTest.start(c -> c.monitorPort(0).serverName("mon-test"));
        MonitorClient monitor = new MonitorClient(server.monitorPort());
        AtomicInteger c1Got = new AtomicInteger();
        AtomicInteger c2Got = new AtomicInteger();
        Connection c1 = connect("c1");
        Connection c2 = connect("c2");
        Connection c3 = connect("c3");
        Dispatcher d1 = c1.createDispatcher(m -> c1Got.incrementAndGet());
        d1.subscribe("pub.a");
        d1.subscribe("pub.b");
        d1.subscribe("pub.q", "workers");
        Dispatcher d2 = c2.createDispatcher(m -> c2Got.incrementAndGet());
        d2.subscribe("pub.*");
        d2.subscribe("pub.q", "workers");
        c1.flush(Duration.ofSeconds(5));
        c2.flush(Duration.ofSeconds(5));
        byte[] payload = new byte[SIZE];
        for (int i = 0; i < MESSAGES; i++) {
            c3.publish("pub.a", payload);
        }
        c3.flush(Duration.ofSeconds(5));
        Await.until("both subscribers got every message", () -> c1Got.get() == MESSAGES && c2Got.get() == MESSAGES,
                () -> c1Got + " / " + c2Got);

        JsonValue varz = monitor.json("/varz");
        assertThat(string(varz, "server_name")).isEqualTo("mon-test");
        assertThat(string(varz, "server_id")).startsWith("RB");
        assertThat(number(varz, "port")).isEqualTo(server.port());
        assertThat(number(varz, "http_port")).isEqualTo(server.monitorPort());
        assertThat(string(varz, "http_host")).isEqualTo("127.0.0.1");
        assertThat(number(varz, "max_payload")).isEqualTo(1024);
        assertThat(number(varz, "connections")).isEqualTo(3);
        assertThat(number(varz, "total_connections")).isEqualTo(3);
        assertThat(number(varz, "in_msgs")).isEqualTo(MESSAGES);
        assertThat(number(varz, "out_msgs")).isEqualTo(2 * MESSAGES);
        assertThat(number(varz, "in_bytes")).isEqualTo((long) MESSAGES * SIZE);
        assertThat(number(varz, "out_bytes")).isEqualTo(2L * MESSAGES * SIZE);
        assertThat(number(varz, "subscriptions")).isEqualTo(5);
        assertThat(number(varz, "slow_consumers")).isZero();
        assertThat(number(field(varz, "http_req_stats"), "/varz")).isEqualTo(1);
        assertThat(number(field(varz, "ringbus"), "published")).isEqualTo(MESSAGES);
        assertThat(number(field(varz, "ringbus"), "delivered")).isEqualTo(2 * MESSAGES);
        assertThat(field(field(varz, "ringbus"), "dropped").map).containsKeys("OVERFLOW_DROP_OLDEST", "SHUTDOWN");

        JsonValue connz = monitor.json("/connz?subs=1");
        assertThat(number(connz, "num_connections")).isEqualTo(3);
        assertThat(number(connz, "total")).isEqualTo(3);
        assertThat(number(connz, "limit")).isEqualTo(1024);
        List<JsonValue> connections = array(connz, "connections");
        JsonValue first = find(connections, "name", "c1");
        assertThat(number(first, "subscriptions")).isEqualTo(3);
        assertThat(number(first, "out_msgs")).isEqualTo(MESSAGES);
        assertThat(number(first, "out_bytes")).isEqualTo((long) MESSAGES * SIZE);
        assertThat(number(first, "in_msgs")).isZero();
        assertThat(string(first, "lang")).isEqualTo("java");
        assertThat(string(first, "ip")).isEqualTo("127.0.0.1");
        assertThat(array(first, "subscriptions_list")).extracting(v -> v.string)
                .containsExactlyInAnyOrder("pub.a", "pub.b", "pub.q");
        JsonValue second = find(connections, "name", "c2");
        assertThat(number(second, "subscriptions")).isEqualTo(2);
        assertThat(number(second, "out_msgs")).isEqualTo(MESSAGES);
        JsonValue publisher = find(connections, "name", "c3");
        assertThat(number(publisher, "in_msgs")).isEqualTo(MESSAGES);
        assertThat(number(publisher, "in_bytes")).isEqualTo((long) MESSAGES * SIZE);
        assertThat(number(publisher, "out_msgs")).isZero();
        assertThat(number(publisher, "subscriptions")).isZero();
        assertThat(publisher.map).doesNotContainKey("subscriptions_list");

        JsonValue detail = monitor.json("/connz?subs=detail&sort=msgs_from&limit=1");
        assertThat(number(detail, "num_connections")).isEqualTo(1);
        assertThat(number(detail, "total")).isEqualTo(3);
        assertThat(string(array(detail, "connections").get(0), "name")).isEqualTo("c3");
        JsonValue paged = monitor.json("/connz?sort=subs&offset=1&subs=detail");
        assertThat(array(paged, "connections")).hasSize(2);
        JsonValue c2Detail = array(paged, "connections").get(0);
        assertThat(string(c2Detail, "name")).isEqualTo("c2");
        JsonValue queued = find(array(c2Detail, "subscriptions_list_detail"), "subject", "pub.q");
        assertThat(string(queued, "qgroup")).isEqualTo("workers");
        assertThat(number(queued, "cid")).isEqualTo(number(c2Detail, "cid"));

        JsonValue subsz = monitor.json("/subsz?subs=1");
        assertThat(number(subsz, "num_subscriptions")).isEqualTo(5);
        assertThat(number(subsz, "num_inserts")).isEqualTo(5);
        assertThat(number(subsz, "num_removes")).isZero();
        assertThat(number(subsz, "num_matches")).isEqualTo(MESSAGES);
        assertThat(field(subsz, "avg_fanout").number.doubleValue()).isEqualTo(2.0);
        assertThat(number(subsz, "total")).isEqualTo(5);
        List<JsonValue> subs = array(subsz, "subscriptions_list");
        assertThat(subs).hasSize(5);
        JsonValue direct = find(subs, "subject", "pub.a");
        assertThat(number(direct, "msgs")).isEqualTo(MESSAGES);
        assertThat(number(direct, "cid")).isEqualTo(number(first, "cid"));
        assertThat(number(find(subs, "subject", "pub.*"), "msgs")).isEqualTo(MESSAGES);
        assertThat(subs).filteredOn(s -> s.map.containsKey("qgroup")).hasSize(2);
        assertThat(array(field(subsz, "ringbus"), "patterns")).hasSize(4);

        d2.unsubscribe("pub.*");
        c2.flush(Duration.ofSeconds(5));
        Await.until("the UNSUB is counted", () -> number(monitor.json("/subsz"), "num_removes") == 1);
        assertThat(number(monitor.json("/subsz"), "num_subscriptions")).isEqualTo(4);

        HttpResponse<String> health = monitor.get("/healthz");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).isEqualTo("{\"status\":\"ok\"}");
        assertThat(number(field(monitor.json("/varz"), "http_req_stats"), "/subsz")).isEqualTo(3);
    }

    @Test
    void dashboardDataHasThroughputWatchdogWarningsAndOutboxBacklog() throws Exception {
        BlockedHandlerLog blocked = new BlockedHandlerLog(10);
        MonitorSources sources = MonitorSources.builder().blockedHandlers(blocked)
                .outboxBacklog(() -> new OutboxBacklog("orders-relay", 42, 1, 3, 1_000)).build();
        server = ServerUnderTest.start(b -> b.blockedHandlerListener(blocked).watchdogInterval(Duration.ofMillis(50)),
                c -> c.monitorPort(0), sources);
        MonitorClient monitor = new MonitorClient(server.monitorPort());
        server.broker.subscribe("pub.slow", m -> java.util.concurrent.locks.LockSupport.parkNanos(600_000_000L),
                SubscribeOptions.defaults().mode(ExecutionMode.WORKER).maxExecuteTime(Duration.ofMillis(100)));
        Connection client = connect("dash");
        client.publish("pub.slow", new byte[10]);
        for (int i = 0; i < 99; i++) {
            client.publish("pub.other", new byte[10]);
        }
        client.flush(Duration.ofSeconds(5));

        Await.until("a throughput sample counts the 100 messages", () -> array(field(monitor.json("/dashz"),
                "throughput"), "in_msgs").stream().mapToLong(v -> v.number.longValue()).sum() == 100);
        Await.until("the blocked handler is listed", () -> !array(field(monitor.json("/dashz"), "watchdog"),
                "recent").isEmpty());
        JsonValue dashz = monitor.json("/dashz");
        JsonValue warning = array(field(dashz, "watchdog"), "recent").get(0);
        assertThat(string(warning, "subscription")).isEqualTo("pub.slow");
        assertThat(string(warning, "mode")).isEqualTo("WORKER");
        assertThat(number(warning, "limit_ms")).isEqualTo(100);
        assertThat(number(field(dashz, "watchdog"), "total")).isPositive();
        JsonValue outbox = field(dashz, "outbox");
        assertThat(outbox.map.get("attached").bool).isTrue();
        assertThat(string(outbox, "name")).isEqualTo("orders-relay");
        assertThat(number(outbox, "pending")).isEqualTo(42);
        assertThat(number(field(dashz, "totals"), "in_msgs")).isEqualTo(100);
        assertThat(number(field(dashz, "totals"), "connections")).isEqualTo(1);
        assertThat(string(find(array(dashz, "subscriptions"), "subject", "pub.slow"), "mode")).isEqualTo("WORKER");
        assertThat(array(dashz, "connections")).hasSize(1);
    }

    @Test
    void withoutAnOutboxTheDashboardSaysSo() {
        server = ServerUnderTest.start(c -> c.monitorPort(0));
        JsonValue dashz = new MonitorClient(server.monitorPort()).json("/dashz");
        assertThat(field(dashz, "outbox").map.get("attached").bool).isFalse();
        assertThat(field(dashz, "watchdog").map.get("recorded").bool).isFalse();
    }

    @Test
    void theDashboardPageIsServedAtTheRoot() {
        server = ServerUnderTest.start(c -> c.monitorPort(0));
        HttpResponse<String> page = new MonitorClient(server.monitorPort()).get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
        assertThat(page.body()).contains("<title>ringbus-server</title>").contains("fetch('dashz'")
                // self-contained: nothing loaded from elsewhere
                .doesNotContain("<script src", "<link", "@import", "url(", "src=\"http", "href=\"http");
    }

    @Test
    void onlyGetAndHeadAreAllowed() {
        server = ServerUnderTest.start(c -> c.monitorPort(0));
        MonitorClient monitor = new MonitorClient(server.monitorPort());
        for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
            HttpResponse<String> response = monitor.send(HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + server.monitorPort() + "/varz"))
                    .method(method, HttpRequest.BodyPublishers.ofString("x")));
            assertThat(response.statusCode()).as(method).isEqualTo(405);
            assertThat(response.headers().firstValue("allow")).hasValue("GET, HEAD");
        }
        HttpResponse<String> head = monitor.send(HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + server.monitorPort() + "/varz")).HEAD());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(monitor.get("/nope").statusCode()).isEqualTo(404);
        HttpResponse<String> badSort = monitor.get("/connz?sort=colour");
        assertThat(badSort.statusCode()).isEqualTo(400);
        assertThat(badSort.body()).contains("sort=colour");
        assertThat(monitor.get("/connz?limit=-1").statusCode()).isEqualTo(400);
    }

    private Connection connect(String name) throws Exception {
        Connection connection = Nats.connect(Options.builder().server(server.url()).connectionName(name)
                .connectionTimeout(Duration.ofSeconds(5)).build());
        clients.add(connection);
        return connection;
    }
}
