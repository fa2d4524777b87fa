package io.ringbus.jetstream;

import com.fasterxml.jackson.databind.JsonNode;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.Scope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * JetStream's monitoring on a ringbus-server with JetStream and its monitoring port: {@code /jsz}
 * and its query options, {@code /varz}'s {@code jetstream}, the meters in {@code /metrics}, the
 * viewer's scope, and {@code /jsz} without JetStream. Streams and consumers made with jnats.
 */
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class JszTest {
    @TempDir
    Path store;

    @Test
    void jszShowsStreamsConsumersAndApiCountsAsItsOptionsAsk() throws Exception {
        try (JetStreamServer server = JetStreamServer.startMonitored(store, b -> b);
             Connection nats = Nats.connect(server.url())) {
            ordersWithAConsumer(nats);
            MonitorHttp monitor = new MonitorHttp(server.monitorPort());

            JsonNode jsz = monitor.json("/jsz");
            assertThat(jsz.path("server_id").asText()).isNotEmpty();
            assertThat(jsz.has("disabled")).isFalse();
            assertThat(jsz.path("config").path("max_memory").asLong()).as("3/4 of the machine's memory").isPositive();
            assertThat(jsz.path("config").path("max_storage").asLong()).as("the store's limit, from the disk")
                    .isPositive();
            assertThat(jsz.path("config").path("store_dir").asText()).isEqualTo(store.toAbsolutePath().toString());
            assertThat(jsz.path("streams").asInt()).isEqualTo(2);
            assertThat(jsz.path("consumers").asInt()).isEqualTo(1);
            assertThat(jsz.path("messages").asLong()).isEqualTo(2);
            assertThat(jsz.path("bytes").asLong()).isPositive().isEqualTo(jsz.path("storage").asLong());
            assertThat(jsz.path("accounts").asInt()).isEqualTo(1);
            // two stream creations, a consumer's, a stream info (an error), as nats-server counts them
            assertThat(jsz.path("api").path("total").asLong()).isEqualTo(4);
            assertThat(jsz.path("api").path("errors").asLong()).isEqualTo(1);
            assertThat(jsz.has("account_details")).as("no details unless asked").isFalse();

            JsonNode all = monitor.json("/jsz?consumers=true&config=true");
            JsonNode account = all.path("account_details").path(0);
            assertThat(account.path("name").asText()).isEqualTo("$G");
            assertThat(account.path("reserved_storage").bigIntegerValue().toString()).isEqualTo("18446744073709551615");
            assertThat(names(account.path("stream_detail"))).containsExactly("EMPTY", "ORDERS");
            JsonNode orders = account.path("stream_detail").path(1);
            assertThat(orders.path("config").path("subjects").path(0).asText()).isEqualTo("orders.>");
            assertThat(orders.path("state").path("messages").asLong()).isEqualTo(2);
            assertThat(orders.path("state").path("consumer_count").asInt()).isEqualTo(1);
            assertThat(orders.path("cluster").path("leader").asText()).isNotEmpty();
            JsonNode consumer = orders.path("consumer_detail").path(0);
            assertThat(consumer.path("name").asText()).isEqualTo("dur");
            assertThat(consumer.path("stream_name").asText()).isEqualTo("ORDERS");
            assertThat(consumer.path("num_pending").asLong()).isEqualTo(2);
            assertThat(consumer.path("config").path("ack_policy").asText()).isEqualTo("explicit");
            assertThat(account.path("stream_detail").path(0).has("consumer_detail")).as("none: left out").isFalse();

            JsonNode streamsOnly = monitor.json("/jsz?streams=1");
            JsonNode detail = streamsOnly.path("account_details").path(0).path("stream_detail").path(1);
            assertThat(detail.path("name").asText()).isEqualTo("ORDERS");
            assertThat(detail.has("config")).isFalse();
            assertThat(detail.has("consumer_detail")).isFalse();
            JsonNode withoutConfig = monitor.json("/jsz?consumers=t").path("account_details").path(0)
                    .path("stream_detail").path(1).path("consumer_detail").path(0);
            assertThat(withoutConfig.path("name").asText()).isEqualTo("dur");
            assertThat(withoutConfig.has("config")).isFalse();

            assertThat(monitor.json("/jsz?accounts=true").path("account_details").path(0).has("stream_detail"))
                    .isFalse();
            assertThat(monitor.json("/jsz?acc=$G").path("account_details").size()).isEqualTo(1);
            assertThat(monitor.json("/jsz?accounts=1&offset=1").has("account_details")).isFalse();
            assertThat(monitor.json("/jsz?leader-only=true").path("streams").asInt()).isEqualTo(2);
            HttpResponse<String> bad = monitor.get("/jsz?accounts=yes");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("accounts=yes");
            assertThat(monitor.get("/jsz?limit=-1").statusCode()).isEqualTo(400);

            JsonNode varz = monitor.json("/varz");
            JsonNode jetstream = varz.path("jetstream");
            assertThat(jetstream.path("config")).isEqualTo(jsz.path("config"));
            JsonNode stats = jetstream.path("stats");
            assertThat(stats.path("storage").asLong()).isEqualTo(jsz.path("storage").asLong());
            assertThat(stats.path("accounts").asInt()).isEqualTo(1);
            long total = stats.path("api").path("total").asLong();
            assertThat(total).isGreaterThanOrEqualTo(jsz.path("api").path("total").asLong());
            assertThat(varz.path("http_req_stats").path("/jsz").asInt()).as("every /jsz above, 400s too").isEqualTo(10);

            String metrics = monitor.get("/metrics").body();
            assertThat(meter(metrics, "ringbus_jetstream_streams")).isEqualTo(2);
            assertThat(meter(metrics, "ringbus_jetstream_consumers")).isEqualTo(1);
            assertThat(meter(metrics, "ringbus_jetstream_messages")).isEqualTo(2);
            assertThat(meter(metrics, "ringbus_jetstream_bytes")).isEqualTo(jsz.path("bytes").asLong());
            assertThat(meter(metrics, "ringbus_jetstream_api_requests_total")).isEqualTo(total);
            assertThat(meter(metrics, "ringbus_jetstream_api_errors_total"))
                    .isEqualTo(stats.path("api").path("errors").asLong()).isPositive();
            assertThat(meter(metrics, "ringbus_jetstream_api_refused_total")).isZero();
            assertThat(metrics).doesNotContain("stream=\"ORDERS\"").doesNotContain("ORDERS");
        }
    }

    @Test
    void aScopedCredentialSeesOnlyItsStreamsAndTheTotals() throws Exception {
        try (JetStreamServer server = JetStreamServer.startMonitored(store, b -> b
                .user("root", "root-pw", Scope.ROOT).user("edge", "edge-pw", Scope.PUBLIC))) {
            server.broker().registerSubject("secret.>", Scope.PRIVATE);
            try (Connection root = Nats.connect(Options.builder().server(server.url()).userInfo("root", "root-pw")
                    .build())) {
                ordersWithAConsumer(root);
                root.jetStreamManagement().addStream(StreamConfiguration.builder().name("SECRET")
                        .subjects("secret.>").build());
                root.jetStream().publish("secret.plan", "x".getBytes(StandardCharsets.UTF_8));
                root.jetStreamManagement().addOrUpdateConsumer("SECRET", ConsumerConfiguration.builder()
                        .durable("spy").ackPolicy(AckPolicy.Explicit).build());
            }
            String all = "/jsz?consumers=1&config=1";
            MonitorHttp edge = new MonitorHttp(server.monitorPort(), "edge", "edge-pw");
            JsonNode seen = edge.json(all);
            assertThat(names(seen.path("account_details").path(0).path("stream_detail")))
                    .containsExactly("EMPTY", "ORDERS");
            assertThat(seen.path("streams").asInt()).as("totals count every stream").isEqualTo(3);
            assertThat(seen.path("consumers").asInt()).isEqualTo(2);
            assertThat(seen.path("config").has("store_dir")).as("the directory: ROOT only").isFalse();
            assertThat(edge.get(all).body()).doesNotContain("SECRET").doesNotContain("secret.").doesNotContain("spy");
            assertThat(edge.json("/varz").path("jetstream").path("config").has("store_dir")).isFalse();
            assertThat(edge.get("/metrics").statusCode()).isEqualTo(403);

            MonitorHttp rootMonitor = new MonitorHttp(server.monitorPort(), "root", "root-pw");
            JsonNode everything = rootMonitor.json(all);
            assertThat(names(everything.path("account_details").path(0).path("stream_detail")))
                    .containsExactly("EMPTY", "ORDERS", "SECRET");
            assertThat(everything.path("config").path("store_dir").asText()).isNotEmpty();
            assertThat(new MonitorHttp(server.monitorPort()).get("/jsz").statusCode()).isEqualTo(401);
        }
    }

    @Test
    void withoutJetStreamJszSaysDisabledAndVarzIsEmpty() throws Exception {
        try (JetStreamServer server = JetStreamServer.startMonitored(store,
                b -> b.extensionSetting("jetstream.enabled", "false"))) {
            MonitorHttp monitor = new MonitorHttp(server.monitorPort());
            JsonNode jsz = monitor.json("/jsz?consumers=true");
            assertThat(jsz.path("disabled").asBoolean()).isTrue();
            assertThat(jsz.path("config").path("max_storage").asLong()).isZero();
            assertThat(jsz.path("accounts").asInt()).isZero();
            assertThat(jsz.has("account_details")).isFalse();
            HttpResponse<String> leaderOnly = monitor.get("/jsz?leader-only=1");
            assertThat(leaderOnly.statusCode()).isEqualTo(400);
            assertThat(leaderOnly.body()).contains("not leader");
            assertThat(monitor.json("/varz").path("jetstream").size()).isZero();
            assertThat(monitor.get("/metrics").body()).doesNotContain("ringbus_jetstream_");
        }
    }

    /**
     * Streams ORDERS ({@code orders.>}, 2 messages, durable consumer {@code dur}) and EMPTY, and
     * one API error (a stream that does not exist): four API requests.
     */
    static void ordersWithAConsumer(Connection nats) throws Exception {
        JetStreamManagement jsm = nats.jetStreamManagement();
        jsm.addStream(StreamConfiguration.builder().name("ORDERS").subjects("orders.>").storageType(StorageType.File)
                .build());
        jsm.addStream(StreamConfiguration.builder().name("EMPTY").subjects("empty").build());
        JetStream js = nats.jetStream();
        js.publish("orders.a", "hello".getBytes(StandardCharsets.UTF_8));
        js.publish("orders.b", "world!".getBytes(StandardCharsets.UTF_8));
        // jnats chooses its consumer-create subject by the server's version (the new CONSUMER.CREATE
        // from 2.9.0; ringbus announces 0.1.0): the same request goes to every server here.
        String durable = "{\"stream_name\":\"ORDERS\",\"config\":{\"durable_name\":\"dur\",\"ack_policy\":\"explicit\"}}";
        Message created = nats.request("$JS.API.CONSUMER.DURABLE.CREATE.ORDERS.dur",
                durable.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
        assertThat(new String(created.getData(), StandardCharsets.UTF_8)).contains("\"name\":\"dur\"");
        assertThatThrownBy(() -> jsm.getStreamInfo("NOPE")).isInstanceOf(JetStreamApiException.class);
    }

    static List<String> names(JsonNode details) {
        List<String> names = new ArrayList<>();
        details.forEach(detail -> names.add(detail.path("name").asText()));
        return names;
    }

    /** @return the value of the meter's one series in a Prometheus scrape */
    private static long meter(String scrape, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{server=\"[^\"]*\"} ([0-9.E+-]+)$").matcher(scrape);
        assertThat(m.find()).as("%s in%n%s", name, scrape).isTrue();
        long value = (long) Double.parseDouble(m.group(1));
        assertThat(m.find()).as("%s has one series", name).isFalse();
        return value;
    }
}
