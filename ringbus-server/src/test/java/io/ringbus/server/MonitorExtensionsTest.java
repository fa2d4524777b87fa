package io.ringbus.server;

import io.nats.client.support.JsonValue;
import io.ringbus.core.Scope;
import io.ringbus.server.spi.DashboardCard;
import io.ringbus.server.spi.ExtensionContext;
import io.ringbus.server.spi.MonitorJson;
import io.ringbus.server.spi.ServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.ringbus.server.MonitorClient.array;
import static io.ringbus.server.MonitorClient.field;
import static io.ringbus.server.MonitorClient.number;
import static io.ringbus.server.MonitorClient.string;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an extension adds to the monitor through the SPI: a path answered later from its own
 * thread (in order with the connection's next request, 503 when it never answers, 400 for a bad
 * parameter and past the response bound), an object of {@code /varz} (one that throws leaves
 * {@code {}}), dashboard cards; and what it may not take.
 */
@Timeout(60)
class MonitorExtensionsTest {
    @Test
    void anExtensionsPathIsAnsweredFromItsThreadInOrderAndBounded() throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.monitorPort(0).extension(new Demo()))) {
            MonitorClient monitor = new MonitorClient(server.monitorPort());
            JsonValue demo = monitor.json("/demo?x=hello");
            assertThat(string(demo, "x")).isEqualTo("hello");
            assertThat(string(demo, "viewer")).isEqualTo("ROOT");
            assertThat(string(demo, "thread")).as("gathered on the extension's thread").isEqualTo("demo-answer");

            HttpResponse<String> bad = monitor.get("/demo?flag=maybe");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("flag=maybe");
            assertThat(monitor.get("/demo?flag=T").statusCode()).isEqualTo(200);
            HttpResponse<String> huge = monitor.get("/huge");
            assertThat(huge.statusCode()).as("past the bound").isEqualTo(400);
            assertThat(huge.body()).contains("characters");
            long started = System.nanoTime();
            HttpResponse<String> never = monitor.get("/never");
            assertThat(never.statusCode()).isEqualTo(503);
            assertThat(never.headers().firstValue("retry-after")).hasValue("1");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(4_900);

            // Pipelined on one connection: the slow answer comes first, then /healthz.
            String pipelined = exchange(server.monitorPort(), "GET /demo?x=first HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            assertThat(pipelined.indexOf("\"x\":\"first\"")).isPositive()
                    .isLessThan(pipelined.indexOf("{\"status\":\"ok\"}"));

            JsonValue varz = monitor.json("/varz");
            assertThat(number(field(varz, "jetstream"), "answers")).isPositive();
            assertThat(field(varz, "mqtt").map).as("a section that throws leaves {}").isEmpty();
            assertThat(number(field(varz, "http_req_stats"), "/demo")).isEqualTo(4);
            assertThat(number(field(varz, "http_req_stats"), "/never")).isEqualTo(1);

            List<JsonValue> cards = array(monitor.json("/dashz"), "cards");
            assertThat(cards).hasSize(2);
            assertThat(string(cards.get(0), "title")).isEqualTo("Demo");
            assertThat(array(cards.get(0), "rows")).hasSize(50);
            assertThat(number(cards.get(0), "total_rows")).isEqualTo(120);
            assertThat(array(cards.get(0), "rows").get(7).array.get(1).number.longValue()).isEqualTo(7);
            assertThat(string(cards.get(1), "error")).contains("card broke");

            assertThat(monitor.get("/nothing-here").body()).contains("/demo").contains("/jsz");
        }
    }

    @Test
    void withoutAnExtensionJszAnswersAsNatsServerWithoutJetStream() {
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.monitorPort(0))) {
            MonitorClient monitor = new MonitorClient(server.monitorPort());
            JsonValue jsz = monitor.json("/jsz?accounts=1&streams=1");
            assertThat(field(jsz, "disabled").bool).isTrue();
            assertThat(number(field(jsz, "config"), "max_storage")).isZero();
            assertThat(jsz.map).doesNotContainKey("account_details");
            assertThat(monitor.get("/jsz?consumers=x").statusCode()).isEqualTo(400);
            assertThat(monitor.get("/jsz?leader-only=true").body()).contains("not leader");
            assertThat(field(monitor.json("/varz"), "jetstream").map).isEmpty();
            assertThat(array(monitor.json("/dashz"), "cards")).isEmpty();
        }
    }

    @Test
    void anExtensionMayNotTakeTheServersPathsOrFields() {
        AtomicReference<List<String>> refused = new AtomicReference<>();
        ServerExtension greedy = new ServerExtension() {
            @Override
            public String name() {
                return "greedy";
            }

            @Override
            public void start(ExtensionContext context) {
                List<String> messages = new ArrayList<>();
                for (Runnable attempt : List.<Runnable>of(
                        () -> context.monitor("/varz", query -> null),
                        () -> context.monitor("/", query -> null),
                        () -> context.monitor("/Upper", query -> null),
                        () -> context.monitor("/a/b", query -> null),
                        () -> context.varz("ringbus", (json, viewer) -> { }),
                        () -> context.varz("server_id", (json, viewer) -> { }))) {
                    assertThatThrownBy(attempt::run).isInstanceOf(IllegalArgumentException.class)
                            .satisfies(e -> messages.add(e.getMessage()));
                }
                context.monitor("/jsz", query -> CompletableFuture.completedFuture(json -> json.writeString("mine")));
                assertThatThrownBy(() -> context.monitor("/jsz", query -> null))
                        .hasMessageContaining("already served");
                context.varz("leaf", (json, viewer) -> json.writeString("leafy"));
                assertThatThrownBy(() -> context.varz("leaf", (json, viewer) -> { }))
                        .hasMessageContaining("already filled");
                refused.set(messages);
            }

            @Override
            public void close() {
            }
        };
        try (ServerUnderTest server = ServerUnderTest.start(c -> c.monitorPort(0).extension(greedy))) {
            assertThat(refused.get()).hasSize(6).allSatisfy(message -> assertThat(message).containsAnyOf("/varz",
                    "'/'", "/Upper", "/a/b", "ringbus", "server_id"));
            MonitorClient monitor = new MonitorClient(server.monitorPort());
            assertThat(monitor.get("/jsz").body()).isEqualTo("\"mine\"");
            assertThat(string(monitor.json("/varz"), "leaf")).isEqualTo("leafy");
        }
    }

    /** Sends {@code requests} on one connection and reads until the server closes it. */
    private static String exchange(int port, String requests) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write(requests.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * {@code /demo} answered 100 ms later from a thread of its own, {@code /never} never,
     * {@code /huge} past any bound; {@code /varz} jetstream and a throwing mqtt; two cards, one
     * of 120 rows and one that throws.
     */
    private static final class Demo implements ServerExtension {
        private final java.util.concurrent.ScheduledExecutorService executor =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "demo-answer"));
        private volatile long answers;

        @Override
        public String name() {
            return "demo";
        }

        @Override
        public void start(ExtensionContext context) {
            context.monitor("/demo", query -> {
                boolean flag = query.flag("flag");
                String x = query.string("x");
                Scope viewer = query.viewer();
                CompletableFuture<MonitorJson> answer = new CompletableFuture<>();
                executor.schedule(() -> {
                    answers++;
                    String thread = Thread.currentThread().getName();
                    answer.complete(json -> {
                        json.writeStartObject();
                        json.writeStringField("x", x);
                        json.writeBooleanField("flag", flag);
                        json.writeStringField("viewer", viewer.name());
                        json.writeStringField("thread", thread);
                        json.writeEndObject();
                        json.close(); // does nothing: the monitor closes the document
                    });
                }, 100, TimeUnit.MILLISECONDS);
                return answer;
            });
            context.monitor("/never", query -> new CompletableFuture<>());
            context.monitor("/huge", query -> CompletableFuture.completedFuture(json -> {
                String chunk = "h".repeat(1 << 20);
                json.writeStartArray();
                for (int i = 0; i < 4_096; i++) {
                    json.writeString(chunk);
                }
                json.writeEndArray();
            }));
            context.varz("jetstream", (json, viewer) -> {
                json.writeStartObject();
                json.writeNumberField("answers", answers);
                json.writeEndObject();
            });
            context.varz("mqtt", (json, viewer) -> {
                json.writeStartObject();
                json.writeNumberField("half", 1);
                throw new IllegalStateException("section broke");
            });
            context.dashboard(() -> {
                List<List<Object>> rows = new ArrayList<>();
                for (int i = 0; i < 120; i++) {
                    rows.add(List.of("row " + i, i));
                }
                return new DashboardCard("Demo", "120 rows", List.of("name", "n"), rows, "none");
            });
            context.dashboard(() -> {
                throw new IllegalStateException("card broke");
            });
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }
}
