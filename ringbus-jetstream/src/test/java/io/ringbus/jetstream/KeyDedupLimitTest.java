package io.ringbus.jetstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jetstream.max_key_dedup_bytes}: the memory that all streams' per-key outbox ids
 * ({@code ringbus_key_dedup_bytes}) may take together is bounded by the server, not by what a client
 * asks for. Before, a client could create a stream of {@code max_bytes} 1 MiB with
 * {@code ringbus_key_dedup_bytes} = {@link Long#MAX_VALUE} and make the server keep 80 MB of ids for
 * 2,000 messages of distinct 20,000-character keys (ids outlive the messages' retention), without end.
 */
@SuppressWarnings("try") // jnats' Connection.close() declares InterruptedException
class KeyDedupLimitTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path store;

    private static JsonNode api(Connection nats, String verb, String name, String dedup) throws Exception {
        String body = "{\"name\":\"" + name + "\",\"subjects\":[\"" + name.toLowerCase() + ".>\"]"
                + (dedup == null ? "" : ",\"ringbus_key_dedup_bytes\":" + dedup) + "}";
        Message reply = nats.request("$JS.API.STREAM." + verb + "." + name, body.getBytes(StandardCharsets.UTF_8),
                Duration.ofSeconds(5));
        return JSON.readTree(reply.getData());
    }

    private static String error(JsonNode reply) {
        return reply.path("error").path("err_code").asText() + " " + reply.path("error").path("description").asText();
    }

    @Test
    void aClientCannotAskForMoreKeyDedupMemoryThanTheServerAllows() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store);
             Connection nats = Nats.connect(server.url())) {
            assertThat(error(api(nats, "CREATE", "HUGE", String.valueOf(Long.MAX_VALUE))))
                    .isEqualTo("10052 ringbus_key_dedup_bytes=9223372036854775807 requested, 9223372036854775807"
                            + " in all streams, at most 67108864 (jetstream.max_key_dedup_bytes)");
            assertThat(api(nats, "CREATE", "FOUR", "4194304").path("config").path("ringbus_key_dedup_bytes").asLong())
                    .as("the documented 4 MiB fits the default").isEqualTo(4194304);
        }
    }

    @Test
    void allStreamsTogetherHoldAtMostTheLimit() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store,
                b -> b.extensionSetting("jetstream.max_key_dedup_bytes", "1048576"));
             Connection nats = Nats.connect(server.url())) {
            assertThat(api(nats, "CREATE", "A", "600000").has("error")).isFalse();
            assertThat(error(api(nats, "CREATE", "B", "600000")))
                    .isEqualTo("10052 ringbus_key_dedup_bytes=600000 requested, 1200000 in all streams, at most"
                            + " 1048576 (jetstream.max_key_dedup_bytes)");
            assertThat(api(nats, "CREATE", "B", null).has("error")).as("a stream without the ids").isFalse();
            assertThat(api(nats, "UPDATE", "A", "1048576").path("config").path("ringbus_key_dedup_bytes").asLong())
                    .as("a stream's own bound is replaced, not counted twice").isEqualTo(1048576);
            assertThat(api(nats, "UPDATE", "A", "0").has("error")).as("turning it off").isFalse();
            assertThat(api(nats, "UPDATE", "B", "1048576").has("error")).as("the room A gave back").isFalse();
        }
    }

    @Test
    void aValueThatIsNotAWholeNumberIsRefusedNamingTheField() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store);
             Connection nats = Nats.connect(server.url())) {
            assertThat(error(api(nats, "CREATE", "TEXT", "\"4m\"")))
                    .isEqualTo("10052 ringbus_key_dedup_bytes must be a whole number of bytes: \"4m\"");
            assertThat(error(api(nats, "CREATE", "BIG", "1e30")))
                    .isEqualTo("10052 ringbus_key_dedup_bytes must be a whole number of bytes: 1.0E30");
        }
    }
}
