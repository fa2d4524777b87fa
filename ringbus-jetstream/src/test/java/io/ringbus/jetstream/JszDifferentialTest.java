package io.ringbus.jetstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.ringbus.testkit.Await;
import io.ringbus.testkit.LoopbackPorts;
import io.ringbus.testkit.ReferenceNatsServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code /jsz} and {@code /varz}'s {@code jetstream} have nats-server 2.9.10's shape: the same
 * streams and consumers made with jnats on a nats-server {@code -js} started with a monitoring
 * port and on ringbus-server, and every object of both answers has the same fields with the same
 * JSON types, down to each consumer's config (arrays of streams matched by name). Values differ by
 * nature (ids, times, server names, byte counts) and are not compared, except the counts the two
 * must agree on. Without JetStream, {@code /jsz} is equal field for field but {@code server_id} and
 * {@code now}.
 */
@Timeout(120)
@SuppressWarnings("try") // jnats' Connection.close() may throw InterruptedException
class JszDifferentialTest {
    private static final String ALL = "/jsz?accounts=true&streams=true&consumers=true&config=true";

    @TempDir
    Path dir;

    @Test
    void jszAndVarzHaveNatsServersShape() throws Exception {
        assumeTrue(ReferenceNatsServer.installed(), "nats-server is not installed");
        int natsMonitor = LoopbackPorts.free();
        Map<String, JsonNode> nats;
        try (ReferenceNatsServer server = ReferenceNatsServer.startJetStream(dir.resolve("nats"),
                "http_port: " + natsMonitor)) {
            nats = answers("nats://127.0.0.1:" + server.port(), natsMonitor);
        }
        Map<String, JsonNode> ringbus;
        try (JetStreamServer server = JetStreamServer.startMonitored(dir.resolve("ringbus"), b -> b)) {
            ringbus = answers(server.url(), server.monitorPort());
        }
        for (String path : nats.keySet()) {
            assertThat(shape(ringbus.get(path))).as("%s%nringbus:     %s%nnats-server: %s", path, ringbus.get(path),
                    nats.get(path)).isEqualTo(shape(nats.get(path)));
        }
        for (String count : List.of("streams", "consumers", "messages", "accounts")) {
            assertThat(ringbus.get("/jsz").path(count)).as(count).isEqualTo(nats.get("/jsz").path(count));
        }
        assertThat(ringbus.get("/jsz").path("api")).isEqualTo(nats.get("/jsz").path("api"));
        JsonNode natsOrders = byName(nats.get(ALL)).get("ORDERS");
        JsonNode ringbusOrders = byName(ringbus.get(ALL)).get("ORDERS");
        assertThat(ringbusOrders.path("config")).isEqualTo(natsOrders.path("config"));
        assertThat(ringbusOrders.path("consumer_detail").path(0).path("config"))
                .isEqualTo(natsOrders.path("consumer_detail").path(0).path("config"));
        assertThat(ringbusOrders.path("state").path("consumer_count"))
                .isEqualTo(natsOrders.path("state").path("consumer_count"));
    }

    @Test
    void withoutJetStreamJszIsNatsServersWithoutJs() throws Exception {
        assumeTrue(ReferenceNatsServer.installed(), "nats-server is not installed");
        int natsMonitor = LoopbackPorts.free();
        JsonNode nats;
        JsonNode natsVarz;
        Path natsDir = dir.resolve("nats");
        Files.createDirectories(natsDir);
        try (ReferenceNatsServer server = ReferenceNatsServer.start(natsDir, "http_port: " + natsMonitor)) {
            MonitorHttp monitor = awaitMonitor(natsMonitor);
            nats = monitor.json("/jsz?consumers=true");
            natsVarz = monitor.json("/varz").path("jetstream");
        }
        try (JetStreamServer server = JetStreamServer.startMonitored(dir.resolve("ringbus"),
                b -> b.extensionSetting("jetstream.enabled", "false"))) {
            MonitorHttp monitor = new MonitorHttp(server.monitorPort());
            JsonNode ringbus = monitor.json("/jsz?consumers=true");
            for (JsonNode answer : List.of(nats, ringbus)) {
                ((ObjectNode) answer).remove(List.of("server_id", "now"));
            }
            assertThat(ringbus).isEqualTo(nats);
            assertThat(monitor.json("/varz").path("jetstream")).isEqualTo(natsVarz);
        }
    }

    /** The same streams and consumers, then {@code /jsz} (bare and with every option) and {@code /varz}'s jetstream. */
    private static Map<String, JsonNode> answers(String url, int monitorPort) throws Exception {
        try (Connection nats = Nats.connect(url)) {
            JszTest.ordersWithAConsumer(nats);
        }
        MonitorHttp monitor = awaitMonitor(monitorPort);
        Map<String, JsonNode> answers = new TreeMap<>();
        answers.put("/jsz", monitor.json("/jsz"));
        answers.put(ALL, monitor.json(ALL));
        answers.put("/jsz?streams=true", monitor.json("/jsz?streams=true"));
        answers.put("/varz jetstream", monitor.json("/varz").path("jetstream"));
        return answers;
    }

    private static MonitorHttp awaitMonitor(int port) {
        Await.until("the monitor on " + port + " answers", () -> LoopbackPorts.accepting(port));
        return new MonitorHttp(port);
    }

    private static Map<String, JsonNode> byName(JsonNode jsz) {
        Map<String, JsonNode> streams = new TreeMap<>();
        jsz.path("account_details").path(0).path("stream_detail").forEach(s -> streams.put(s.path("name").asText(), s));
        return streams;
    }

    /**
     * @return the JSON's shape: each object's field names (sorted) with their shapes, each array's
     *         elements' shapes (objects with a {@code name} sorted by it), each value's JSON type
     */
    static String shape(JsonNode json) {
        if (json == null || json.isMissingNode()) {
            return "missing";
        }
        if (json.isObject()) {
            Map<String, String> fields = new TreeMap<>();
            for (Map.Entry<String, JsonNode> field : json.properties()) {
                fields.put(field.getKey(), shape(field.getValue()));
            }
            return fields.toString();
        }
        if (json.isArray()) {
            List<JsonNode> elements = new ArrayList<>();
            json.forEach(elements::add);
            elements.sort((a, b) -> a.path("name").asText().compareTo(b.path("name").asText()));
            List<String> shapes = new ArrayList<>();
            elements.forEach(element -> shapes.add(shape(element)));
            return shapes.toString();
        }
        return json.isNumber() ? "number" : json.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
