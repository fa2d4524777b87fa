package io.ringbus.server;

import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a network client can make a durable subject keep is bounded (issue 25), checked against the
 * server as users run it, in a JVM with a 128 MiB heap, over raw sockets.
 */
@Timeout(180)
class DurableLimitsTest {
    private static final String HEAP = "128m";
    /** nats-server 2.9.10's reply to the same publish to a JetStream stream. */
    private static final String NATS_SERVER_REFUSAL =
            "{\"error\":{\"code\":400,\"err_code\":10097,\"description\":\"header size exceeds maximum allowed of 64k\"}}";

    @TempDir
    Path dir;

    @Test
    void publishesWithHugeMessageIdsAreRefusedAsNatsServerRefusesThemAndTheServerStaysUp() throws Exception {
        int count = 350;
        try (ForkedServer server = ForkedServer.start(HEAP, "--storage-dir", dir.toString(),
                "--durable", "ids.>=max_bytes=4m");
             RawClient attacker = RawClient.connect(server.port())) {
            attacker.handshake();
            attacker.send("SUB _INBOX.acks 1\r\n");
            String pad = "i".repeat(256 << 10);
            List<String> replies = sendAll(attacker, count, i -> i + "-" + pad);

            assertThat(replies).hasSize(count).allSatisfy(r -> assertThat(r).isEqualTo(NATS_SERVER_REFUSAL));
            assertThat(server.isAlive()).isTrue();
            try (RawClient healthy = RawClient.connect(server.port())) {
                healthy.handshake();
                healthy.send("PING\r\n");
                healthy.expectLine("PONG");
            }
            JsonValue storage = storage(server);
            assertThat(MonitorClient.number(storage, "refused")).isEqualTo(count);
            JsonValue stream = MonitorClient.find(MonitorClient.array(storage, "streams"), "name", "ids_all");
            assertThat(MonitorClient.number(stream, "last_seq")).as("nothing refused was stored").isZero();
        }
    }

    @Test
    void longMessageIdsUnderTheCapAreStoredWithinTheDuplicateWindowsBound() throws Exception {
        int count = 200;
        try (ForkedServer server = ForkedServer.start(HEAP, "--storage-dir", dir.toString(),
                "--durable", "ids.>=max_bytes=4m,duplicate_window_bytes=1m");
             RawClient publisher = RawClient.connect(server.port())) {
            publisher.handshake();
            publisher.send("SUB _INBOX.acks 1\r\n");
            String pad = "i".repeat(60 << 10);
            List<String> replies = sendAll(publisher, count, i -> i + "-" + pad);

            assertThat(replies).hasSize(count).allSatisfy(r -> assertThat(r).startsWith("{\"stream\":\"ids_all\""));
            JsonValue stream = MonitorClient.find(MonitorClient.array(storage(server), "streams"), "name", "ids_all");
            assertThat(MonitorClient.number(stream, "last_seq")).as("every message stored").isEqualTo(count);
            assertThat(MonitorClient.number(stream, "duplicate_bytes")).isPositive().isLessThanOrEqualTo(1 << 20);
            assertThat(MonitorClient.number(stream, "duplicates_forgotten")).isPositive();
            assertThat(MonitorClient.number(stream, "bytes")).as("max_bytes holds").isLessThanOrEqualTo(4 << 20);
        }
    }

    /** An id for publish {@code i}. */
    private interface Ids {
        String id(int i);
    }

    /** Sends {@code count} HPUBs with ids to {@code ids.a}, then a PING; @return the PubAcks, once the PONG came */
    private static List<String> sendAll(RawClient client, int count, Ids ids) throws InterruptedException {
        Thread writer = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < count; i++) {
                byte[] headers = ("NATS/1.0\r\nNats-Msg-Id: " + ids.id(i) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
                byte[] payload = "data".getBytes(StandardCharsets.US_ASCII);
                ByteArrayOutputStream frame = new ByteArrayOutputStream(headers.length + 64);
                frame.writeBytes(("HPUB ids.a _INBOX.acks " + headers.length + " " + (headers.length + payload.length)
                        + "\r\n").getBytes(StandardCharsets.US_ASCII));
                frame.writeBytes(headers);
                frame.writeBytes(payload);
                frame.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
                client.send(frame.toByteArray());
            }
            client.send("PING\r\n");
        });
        List<String> replies = new ArrayList<>();
        boolean pong = false;
        while (!pong || replies.size() < count) {
            String line = client.readLine();
            if (line.equals("PONG")) {
                pong = true;
            } else if (line.equals("PING")) {
                client.send("PONG\r\n");
            } else {
                replies.add(client.readDelivery(line).text());
            }
        }
        writer.join();
        return replies;
    }

    private static JsonValue storage(ForkedServer server) {
        String body = server.monitor("/varz").body();
        return MonitorClient.field(MonitorClient.field(JsonParser.parseUnchecked(body), "ringbus"), "storage");
    }
}
