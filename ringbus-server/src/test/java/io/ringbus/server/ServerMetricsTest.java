package io.ringbus.server;

import io.ringbus.testkit.Await;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.nats.client.Connection;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's Micrometer meters after known traffic from jnats and raw-socket clients: exact
 * connection, subscription, message and byte counts, auth failures, permission violations, slow
 * consumers, and the names the Prometheus exposition gives every meter.
 */
@Timeout(90)
@SuppressWarnings("try") // jnats Connection.close() throws InterruptedException; the tests declare it
class ServerMetricsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final RecordingErrorListener listener = new RecordingErrorListener();
    private ServerUnderTest server;

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private double counter(String name, String... tags) {
        FunctionCounter counter = registry.find(name).tags(tags).functionCounter();
        assertThat(counter).as("%s %s", name, List.of(tags)).isNotNull();
        return counter.count();
    }

    private double gauge(String name) {
        Gauge gauge = registry.find(name).gauge();
        assertThat(gauge).as(name).isNotNull();
        return gauge.value();
    }

    @Test
    void countsJnatsConnectionsSubscriptionsAndMessages() throws Exception {
        server = ServerUnderTest.startMetered(registry, c -> c.serverName("edge-1"));
        List<Connection> subscribers = new ArrayList<>();
        List<AtomicInteger> received = new ArrayList<>();
        try (Connection publisher = listener.connect(server)) {
            for (int i = 0; i < 3; i++) {
                Connection subscriber = listener.connect(server);
                AtomicInteger count = new AtomicInteger();
                subscriber.createDispatcher(msg -> count.incrementAndGet()).subscribe("pub.orders.>");
                subscriber.flush(WAIT);
                subscribers.add(subscriber);
                received.add(count);
            }
            for (int i = 0; i < 100; i++) {
                publisher.publish("pub.orders.eu", ("o-" + i).getBytes(StandardCharsets.UTF_8));
            }
            publisher.flush(WAIT);
            Await.until("each subscriber got 100", () -> received.stream().allMatch(c -> c.get() == 100),
                    () -> received);

            assertThat(counter("ringbus.server.connections.accepted", "server", "edge-1")).isEqualTo(4);
            assertThat(gauge("ringbus.server.connections")).isEqualTo(4);
            assertThat(gauge("ringbus.server.subscriptions")).isEqualTo(3);
            assertThat(counter("ringbus.server.messages.in")).isEqualTo(100);
            assertThat(counter("ringbus.server.messages.out")).isEqualTo(300);
            // The broker's meters in the same registry: three network subscriptions, one series.
            assertThat(registry.find("ringbus.delivered").tag("pattern", "pub.orders.>").functionCounters())
                    .hasSize(1);
            assertThat(counter("ringbus.delivered", "pattern", "pub.orders.>", "mode", "PUBLISHER")).isEqualTo(300);
            assertThat(counter("ringbus.published", "broker", "t")).isEqualTo(100);

            subscribers.remove(0).close();
            Await.until("the closed connection is gone", () -> gauge("ringbus.server.connections") == 3
                    && gauge("ringbus.server.subscriptions") == 2, server::stats);
            assertThat(counter("ringbus.server.connections.accepted")).isEqualTo(4);
        } finally {
            for (Connection subscriber : subscribers) {
                subscriber.close();
            }
        }
        server.close();
        assertThat(registry.find("ringbus.server.connections").meters()).as("removed on close").isEmpty();
        server = null;
    }

    @Test
    void countsBytesInAndOutExactlyForKnownFrames() {
        server = ServerUnderTest.startMetered(registry, c -> c);
        String connect = "{\"verbose\":false,\"pedantic\":false,\"headers\":true}";
        String sub = "SUB pub.bytes 7\r\n";
        String pub = "PUB pub.bytes 5\r\nhello\r\n";
        String msg = "MSG pub.bytes 7 5\r\nhello\r\n";
        int n = 50;
        try (RawClient client = RawClient.connect(server.port())) {
            client.handshake(connect); // sends "CONNECT <json>\r\nPING\r\n"
            client.send(sub + pub.repeat(n) + "PING\r\n");
            for (int i = 0; i < n; i++) {
                RawClient.Delivery delivery = client.readDelivery();
                assertThat(delivery.text()).isEqualTo("hello");
            }
            client.expectLine("PONG");

            long sent = ("CONNECT " + connect + "\r\nPING\r\n").length() + sub.length() + (long) n * pub.length()
                    + "PING\r\n".length();
            assertThat(counter("ringbus.server.bytes.in")).isEqualTo(sent);
            // Only MSG/HMSG frames count out (INFO, PONG, +OK and -ERR do not).
            assertThat(counter("ringbus.server.bytes.out")).isEqualTo((long) n * msg.length());
            assertThat(counter("ringbus.server.messages.in")).isEqualTo(n);
            assertThat(counter("ringbus.server.messages.out")).isEqualTo(n);
        }
    }

    @Test
    void countsAuthFailuresAndPermissionViolations() {
        server = ServerUnderTest.startMetered(registry, c -> c.token("s3cr3t", Scope.PUBLIC));
        try (RawClient intruder = RawClient.connect(server.port());
             RawClient client = RawClient.connect(server.port())) {
            intruder.readLine(); // INFO
            intruder.send("CONNECT {\"auth_token\":\"wrong\"}\r\nPING\r\n");
            assertThat(intruder.readUntilClosed()).contains("-ERR 'Authorization Violation'");

            client.handshake("{\"verbose\":false,\"auth_token\":\"s3cr3t\"}");
            client.send("PUB secret.x 1\r\nx\r\nSUB secret.y 1\r\nPUB pub.ok 1\r\nx\r\nPING\r\n");
            client.expectLine("-ERR 'Permissions Violation for Publish to \"secret.x\"'");
            client.expectLine("-ERR 'Permissions Violation for Subscription to \"secret.y\"'");
            client.expectLine("PONG");

            assertThat(counter("ringbus.server.auth.failures", "reason", "unknown_token")).isEqualTo(1);
            assertThat(counter("ringbus.server.auth.failures", "reason", "bad_password")).isZero();
            assertThat(counter("ringbus.server.permission.violations")).isEqualTo(2);
            assertThat(counter("ringbus.server.messages.in")).isEqualTo(1);
        }
    }

    @Test
    void countsSlowConsumers() throws Exception {
        server = ServerUnderTest.startMetered(registry, c -> c.maxPending(65_536));
        byte[] payload = new byte[1000];
        Arrays.fill(payload, (byte) 'x');
        try (RawClient stalled = RawClient.connect(server.port(), 4096);
             Connection publisher = listener.connect(server)) {
            stalled.handshake();
            stalled.send("SUB pub.flood 1\r\nPING\r\n");
            stalled.expectLine("PONG");
            // From here on the raw client reads nothing.
            int published = 0;
            while (server.stats().slowConsumers() == 0 && published < 40_000) {
                publisher.publish("pub.flood", payload);
                if (++published % 32 == 0) {
                    publisher.flush(WAIT);
                }
            }
            assertThat(counter("ringbus.server.slow.consumers")).isEqualTo(1);
            Await.until("the slow consumer is closed", () -> gauge("ringbus.server.connections") == 1,
                    server::stats);
            assertThat(gauge("ringbus.server.subscriptions")).isZero();
        }
    }

    @Test
    void prometheusNamesAreTheAgreedOnes() throws Exception {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        server = ServerUnderTest.startMetered(prometheus, c -> c.serverName("edge-2"));
        try (Connection client = listener.connect(server)) {
            AtomicInteger received = new AtomicInteger();
            client.createDispatcher(msg -> received.incrementAndGet()).subscribe("pub.p.>");
            client.publish("pub.p.1", new byte[] {1});
            client.flush(WAIT);
            Await.until("received", () -> received.get() == 1);
            String scrape = prometheus.scrape();
            for (String series : List.of(
                    "ringbus_published_total{broker=\"t\"} 1",
                    "ringbus_delivered_total{broker=\"t\",mode=\"PUBLISHER\",pattern=\"pub.p.>\"} 1",
                    "ringbus_handler_latency_seconds_count{broker=\"t\",mode=\"PUBLISHER\",pattern=\"pub.p.>\"} 1",
                    "ringbus_handler_latency_seconds_bucket{broker=\"t\",mode=\"PUBLISHER\",pattern=\"pub.p.>\",le=",
                    "ringbus_handler_errors_total{broker=\"t\",pattern=\"pub.p.>\"} 0",
                    "ringbus_subscription_pending{broker=\"t\",pattern=\"pub.p.>\"} 0",
                    "ringbus_subscription_lag{broker=\"t\",pattern=\"pub.p.>\"} ",
                    "ringbus_ring_remaining{broker=\"t\"} ",
                    "ringbus_ring_size{broker=\"t\"} 4096",
                    "ringbus_subscriptions{broker=\"t\"} ",
                    "ringbus_watchdog_warnings_total{broker=\"t\",mode=\"VIRTUAL\"} 0",
                    "ringbus_pattern_overflow_total{broker=\"t\"} 0",
                    "ringbus_server_connections{server=\"edge-2\"} 1",
                    "ringbus_server_connections_accepted_total{server=\"edge-2\"} 1",
                    "ringbus_server_subscriptions{server=\"edge-2\"} 1",
                    "ringbus_server_bytes_in_total{server=\"edge-2\"} ",
                    "ringbus_server_bytes_out_total{server=\"edge-2\"} ",
                    "ringbus_server_messages_in_total{server=\"edge-2\"} 1",
                    "ringbus_server_messages_out_total{server=\"edge-2\"} 1",
                    "ringbus_server_slow_consumers_total{server=\"edge-2\"} 0",
                    "ringbus_server_auth_failures_total{reason=\"unknown_token\",server=\"edge-2\"} 0",
                    "ringbus_server_permission_violations_total{server=\"edge-2\"} 0")) {
                assertThat(scrape).as("series %s", series).contains("\n" + series);
            }
        }
    }
}
