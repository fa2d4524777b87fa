package io.ringbus.outbox;

import io.ringbus.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbus.core.Headers;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link HttpWebhookSink} against a real HTTP server, through a real relay on H2. */
class HttpWebhookSinkTest {
    private static final RetryPolicy QUICK_RETRIES = new RetryPolicy(5, Duration.ofMillis(50), Duration.ofMillis(200), 0);

    private WebhookServer server;
    private Outbox outbox;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        server = new WebhookServer();
        outbox = Outbox.builder().jdbcUrl(TestDatabases.h2Url()).open();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        outbox.close();
        server.close();
    }

    private HttpWebhookSink sink(HttpWebhookSinkBuilder builder) {
        HttpWebhookSink sink = builder.build();
        toClose.add(sink);
        return sink;
    }

    private Relay relay(OutboxSink sink) {
        Relay relay = outbox.relay().deleteDelivered(false).sink(sink).pollInterval(Duration.ofMillis(20)).retryPolicy(QUICK_RETRIES).start();
        toClose.add(relay);
        return relay;
    }

    @Test
    void deliversPayloadAndHeadersOn2xx() throws Exception {
        relay(sink(HttpWebhookSink.builder(server.uri()).header("Authorization", "Bearer s3cret")
                .header("Content-Type", "text/plain")));
        long keyed = outbox.publish("orders.created", "order-1", bytes("{\"id\":1}"),
                Headers.of("Trace", "t-1", "Content-Type", "application/json"));
        long plain = outbox.publish("orders.note", null, bytes("raw"), Headers.EMPTY);
        Await.until("both delivered", () -> counts().delivered() == 2);

        assertThat(server.requests).hasSize(2);
        WebhookServer.Request first = request(keyed);
        assertThat(first.method()).isEqualTo("POST");
        assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1}");
        assertThat(first.header("Ringbus-Event-Id")).isEqualTo(String.valueOf(keyed));
        assertThat(first.header("Ringbus-Subject")).isEqualTo("orders.created");
        assertThat(first.header("Ringbus-Key")).isEqualTo("order-1");
        assertThat(first.header("Trace")).isEqualTo("t-1");
        assertThat(first.header("Authorization")).isEqualTo("Bearer s3cret");
        assertThat(first.headers().get("Content-Type")).as("the row's Content-Type replaces the sink's")
                .containsExactly("application/json");

        WebhookServer.Request second = request(plain);
        assertThat(new String(second.body(), StandardCharsets.UTF_8)).isEqualTo("raw");
        assertThat(second.header("Ringbus-Subject")).isEqualTo("orders.note");
        assertThat(second.header("Ringbus-Key")).isNull();
        assertThat(second.headers().get("Content-Type")).containsExactly("text/plain");
    }

    @Test
    void contentTypeDefaultsToOctetStream() throws Exception {
        relay(sink(HttpWebhookSink.builder(server.uri())));
        long id = outbox.publish("a.b", null, new byte[] {1, 2, 3}, Headers.EMPTY);
        Await.until("delivered", () -> counts().delivered() == 1);
        assertThat(request(id).header("Content-Type")).isEqualTo("application/octet-stream");
        assertThat(request(id).body()).containsExactly(1, 2, 3);
    }

    @Test
    void retries5xxUntilTheServerRecovers() throws Exception {
        server.behave((request, attempt) -> new WebhookServer.Answer(0, attempt <= 2 ? 500 : 200));
        Relay relay = relay(sink(HttpWebhookSink.builder(server.uri())));
        long id = outbox.publish("payments.captured", "p-1", bytes("x"), Headers.EMPTY);
        Await.until("delivered after two 500s", () -> counts().delivered() == 1);
        assertThat(server.attempts(String.valueOf(id))).isEqualTo(3);
        assertThat(relay.stats().retried()).isEqualTo(2);
        assertThat(counts().dead()).isZero();
    }

    @Test
    void deadLettersA4xxAtOnce() throws Exception {
        server.behave((request, attempt) -> new WebhookServer.Answer(0, 400));
        relay(sink(HttpWebhookSink.builder(server.uri())));
        long id = outbox.publish("orders.bad", null, bytes("x"), Headers.EMPTY);
        Await.until("dead letter", () -> counts().dead() == 1);
        assertThat(server.attempts(String.valueOf(id))).isEqualTo(1);
        assertThat(outbox.deadLetters().inspect(id).orElseThrow().lastError())
                .contains("HTTP 400").contains(server.uri().toString());
    }

    @Test
    void retriesWhenTheServerHangsPastTheRequestTimeout() throws Exception {
        server.behave((request, attempt) -> new WebhookServer.Answer(attempt == 1 ? 2_000 : 0, 200));
        Relay relay = relay(sink(HttpWebhookSink.builder(server.uri()).requestTimeout(Duration.ofMillis(300))));
        long id = outbox.publish("slow.one", null, bytes("x"), Headers.EMPTY);
        Await.until("delivered on the second attempt", () -> counts().delivered() == 1);
        assertThat(server.attempts(String.valueOf(id))).isEqualTo(2);
        assertThat(relay.stats().retried()).isEqualTo(1);
    }

    @Test
    void keepsAtMostMaxConcurrencyRequestsInFlight() throws Exception {
        server.behave((request, attempt) -> new WebhookServer.Answer(50, 200));
        relay(sink(HttpWebhookSink.builder(server.uri()).maxConcurrency(4)));
        for (int i = 0; i < 100; i++) {
            outbox.publish("bulk.row", null, bytes("r" + i), Headers.EMPTY);
        }
        Await.until("100 delivered", Duration.ofSeconds(60), () -> counts().delivered() == 100);
        assertThat(server.requests).hasSize(100);
        assertThat(server.maxConcurrent.get()).as("bound on requests in flight").isLessThanOrEqualTo(4)
                .as("requests really overlap").isGreaterThanOrEqualTo(2);
    }

    @Test
    void mapsStatusCodesToDeliveredRetryOrDeadLetter() throws Exception {
        HttpWebhookSink sink = sink(HttpWebhookSink.builder(server.uri()));
        for (int status : new int[] {200, 201, 204}) {
            server.behave((request, attempt) -> new WebhookServer.Answer(0, status));
            assertThat(outcome(sink)).as("HTTP %d", status).isNull();
        }
        for (int status : new int[] {400, 401, 404, 409, 422}) {
            server.behave((request, attempt) -> new WebhookServer.Answer(0, status));
            assertThat(outcome(sink)).as("HTTP %d", status).isInstanceOf(PermanentDeliveryException.class)
                    .hasMessageContaining("HTTP " + status).hasMessageContaining(server.uri().toString());
        }
        for (int status : new int[] {408, 429, 500, 502, 503, 302}) {
            server.behave((request, attempt) -> new WebhookServer.Answer(0, status));
            assertThat(outcome(sink)).as("HTTP %d", status).isInstanceOf(IOException.class)
                    .isNotInstanceOf(PermanentDeliveryException.class)
                    .hasMessageContaining("HTTP " + status).hasMessageContaining(server.uri().toString());
        }
    }

    @Test
    void connectionRefusedIsARetry() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        URI nobody = URI.create("http://127.0.0.1:" + port + "/hook");
        HttpWebhookSink sink = sink(HttpWebhookSink.builder(nobody));
        assertThat(outcome(sink)).isInstanceOf(IOException.class).hasMessageContaining(nobody.toString());
    }

    @Test
    void requestOnAConnectionTheServerDroppedIsSentAgainAtOnce() throws Exception {
        // A raw server that drops its first connection after reading the request (as a server
        // closing an idle keep-alive connection does) and answers 200 on the next one.
        try (ServerSocket raw = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger connections = new AtomicInteger();
            Thread serverThread = Thread.ofVirtual().start(() -> {
                while (!raw.isClosed()) {
                    try (Socket socket = raw.accept()) {
                        int n = connections.incrementAndGet();
                        readRequest(socket.getInputStream());
                        if (n > 1) {
                            socket.getOutputStream().write(
                                    "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                            socket.getOutputStream().flush();
                        }
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            URI uri = URI.create("http://127.0.0.1:" + raw.getLocalPort() + "/hook");
            HttpWebhookSink sink = sink(HttpWebhookSink.builder(uri));
            assertThat(outcome(sink)).isNull();
            assertThat(connections.get()).isEqualTo(2);
            serverThread.interrupt();
        }
    }

    private static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            if (b < 0) {
                return;
            }
            head.append((char) b);
        }
        String lower = head.toString().toLowerCase(Locale.ROOT);
        int at = lower.indexOf("content-length:");
        if (at >= 0) {
            int length = Integer.parseInt(lower.substring(at + 15, lower.indexOf("\r\n", at)).trim());
            in.readNBytes(length);
        }
    }

    @Test
    void rowHeaderThatIsNotValidHttpIsADeadLetter() throws Exception {
        HttpWebhookSink sink = sink(HttpWebhookSink.builder(server.uri()));
        OutboxEvent event = event(Headers.of("Bad(name)", "x"));
        assertThat(outcome(sink, event)).isInstanceOf(PermanentDeliveryException.class).hasMessageContaining("Bad(name)");
        assertThat(server.requests).isEmpty();
    }

    @Test
    void builderRejectsBadValuesNamingThem() {
        assertThatThrownBy(() -> HttpWebhookSink.builder(URI.create("ftp://host/x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ftp://host/x");
        assertThatThrownBy(() -> HttpWebhookSink.builder(URI.create("/relative")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/relative");
        HttpWebhookSinkBuilder builder = HttpWebhookSink.builder(server.uri());
        assertThatThrownBy(() -> builder.maxConcurrency(0)).hasMessageContaining("maxConcurrency=0");
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ZERO)).hasMessageContaining("requestTimeout=PT0S");
        assertThatThrownBy(() -> builder.connectTimeout(Duration.ofSeconds(-1))).hasMessageContaining("connectTimeout=PT-1S");
        assertThatThrownBy(() -> builder.header("Content-Length", "3")).hasMessageContaining("Content-Length=3");
        assertThatThrownBy(() -> builder.header("bad name", "x")).hasMessageContaining("bad name=x");
        assertThatThrownBy(() -> builder.name(" ")).hasMessageContaining("name=' '");
    }

    private Throwable outcome(HttpWebhookSink sink) throws Exception {
        return outcome(sink, event(Headers.EMPTY));
    }

    private static Throwable outcome(HttpWebhookSink sink, OutboxEvent event) throws Exception {
        try {
            sink.deliver(event).toCompletableFuture().get(10, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static OutboxEvent event(Headers headers) {
        return new OutboxEvent(7, "7", "direct.call", null, bytes("x"), headers, 0, Instant.now());
    }

    private WebhookServer.Request request(long id) {
        return server.requests.stream().filter(r -> String.valueOf(id).equals(r.eventId())).findFirst().orElseThrow();
    }

    private OutboxCounts counts() {
        return TestDatabases.counts(outbox);
    }

    private static byte[] bytes(String text) {
        return OutboxContractTest.bytes(text);
    }
}
