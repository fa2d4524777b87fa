package io.ringbus.jetstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-key outbox ids through the real path: jnats publishing outbox-shaped messages (the headers
 * ringbus-outbox's JetStreamSink sets) to ringbus-server's JetStream, on a stream created with
 * {@code ringbus_key_dedup_bytes} and a 100 ms duplicate window. A redelivery after the window is
 * acknowledged as a duplicate of the stored message and stored once, across a restart; messages
 * without the outbox headers keep nats-server's window semantics.
 */
@SuppressWarnings("try") // jnats' Connection.close() declares InterruptedException
class KeyedDedupJetStreamTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long WINDOW_NANOS = Duration.ofMillis(100).toNanos();

    @TempDir
    Path store;

    private static JsonNode api(Connection nats, String subject, String body) throws Exception {
        Message reply = nats.request(subject, body.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
        return JSON.readTree(reply.getData());
    }

    private static PublishAck publish(JetStream js, String eventId, String key, String msgId) throws Exception {
        Headers headers = new Headers().add("Ringbus-Event-Id", eventId).add("Nats-Msg-Id", msgId);
        if (key != null) {
            headers.add("Ringbus-Key", key);
        }
        return js.publish(NatsMessage.builder().subject("orders.created").headers(headers)
                .data(eventId.getBytes(StandardCharsets.UTF_8)).build());
    }

    @Test
    void aRedeliveryAfterTheDuplicateWindowIsAcknowledgedAsADuplicateAndStoredOnce() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store)) {
            try (Connection nats = Nats.connect(server.url())) {
                JsonNode created = api(nats, "$JS.API.STREAM.CREATE.ORDERS", "{\"name\":\"ORDERS\",\"subjects\":"
                        + "[\"orders.>\"],\"duplicate_window\":" + WINDOW_NANOS + ",\"ringbus_key_dedup_bytes\":1048576}");
                assertThat(created.path("error").isMissingNode()).as("created: %s", created).isTrue();
                assertThat(created.path("config").path("ringbus_key_dedup_bytes").asLong()).isEqualTo(1048576);

                JetStream js = nats.jetStream();
                assertThat(publish(js, "outbox-1", "cust-7", "outbox-1").getSeqno()).isEqualTo(1);
                assertThat(publish(js, "outbox-2", "cust-7", "outbox-2").getSeqno()).isEqualTo(2);
                assertThat(publish(js, "plain-1", null, "plain-1").getSeqno()).isEqualTo(3);
                Thread.sleep(300); // past the 100 ms window: Nats-Msg-Id alone no longer catches a retry

                PublishAck redelivered = publish(js, "outbox-2", "cust-7", "outbox-2");
                assertThat(redelivered.isDuplicate()).isTrue();
                assertThat(redelivered.getSeqno()).as("the sequence of the stored copy").isEqualTo(2);
                assertThat(publish(js, "outbox-1", "cust-7", "outbox-1").isDuplicate()).isTrue();
                assertThat(publish(js, "other-2", "cust-7", "other-2").isDuplicate())
                        .as("another outbox's prefix: not a duplicate of this one's rows").isFalse();
                PublishAck plain = publish(js, "plain-1", null, "plain-1");
                assertThat(plain.isDuplicate()).as("no Ringbus-Key: nats-server's window only, which has passed")
                        .isFalse();
                assertThat(plain.getSeqno()).isEqualTo(5);

                JsonNode state = api(nats, "$JS.API.STREAM.INFO.ORDERS", "").path("state");
                assertThat(state.path("messages").asLong()).isEqualTo(5);
                assertThat(state.path("ringbus_key_dedup").path("duplicates").asLong()).isEqualTo(2);
                assertThat(state.path("ringbus_key_dedup").path("keys").asLong()).isEqualTo(2);
            }
        }
        try (JetStreamServer restarted = JetStreamServer.start(store)) {
            try (Connection nats = Nats.connect(restarted.url())) {
                JetStream js = nats.jetStream();
                PublishAck again = publish(js, "outbox-2", "cust-7", "outbox-2");
                assertThat(again.isDuplicate()).as("after a restart").isTrue();
                assertThat(again.getSeqno()).isEqualTo(2);
                assertThat(publish(js, "outbox-3", "cust-7", "outbox-3").getSeqno()).isEqualTo(6);
                assertThat(api(nats, "$JS.API.STREAM.INFO.ORDERS", "").path("state").path("messages").asLong())
                        .isEqualTo(6);
            }
        }
    }

    @Test
    void aStreamWithoutTheFieldKeepsNatsServersWindowOnly() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store)) {
            try (Connection nats = Nats.connect(server.url())) {
                JsonNode created = api(nats, "$JS.API.STREAM.CREATE.PLAIN", "{\"name\":\"PLAIN\",\"subjects\":"
                        + "[\"orders.>\"],\"duplicate_window\":" + WINDOW_NANOS + "}");
                assertThat(created.path("config").has("ringbus_key_dedup_bytes")).isFalse();
                JetStream js = nats.jetStream();
                publish(js, "outbox-1", "cust-7", "outbox-1");
                assertThat(publish(js, "outbox-1", "cust-7", "outbox-1").isDuplicate()).as("in the window").isTrue();
                Thread.sleep(300);
                assertThat(publish(js, "outbox-1", "cust-7", "outbox-1").isDuplicate()).as("past the window").isFalse();
                JsonNode state = api(nats, "$JS.API.STREAM.INFO.PLAIN", "").path("state");
                assertThat(state.path("messages").asLong()).isEqualTo(2);
                assertThat(state.has("ringbus_key_dedup")).isFalse();
            }
        }
    }

    @Test
    void aBoundBelowTheMinimumIsRefusedNamingTheValue() throws Exception {
        try (JetStreamServer server = JetStreamServer.start(store)) {
            try (Connection nats = Nats.connect(server.url())) {
                JsonNode reply = api(nats, "$JS.API.STREAM.CREATE.BAD", "{\"name\":\"BAD\",\"subjects\":[\"bad.>\"],"
                        + "\"ringbus_key_dedup_bytes\":10}");
                assertThat(reply.path("error").path("description").asText()).contains("ringbus_key_dedup_bytes")
                        .contains("10");
            }
        }
    }
}
