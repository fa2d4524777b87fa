package io.ringbus.jetstream.internal.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import io.ringbus.core.StoredStream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code $JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>} and {@code +NXT}: a pull request parsed and
 * checked as nats-server 2.9.10's {@code processNextMsgRequest} does, answered with its status
 * messages ({@code NATS/1.0 409 Exceeded MaxWaiting}, {@code 404 No Messages}, ...).
 *
 * <p>The request body: empty (one message), a number (a batch), or
 * {@code {"batch":n,"expires":nanos,"no_wait":bool,"max_bytes":n,"idle_heartbeat":nanos}}.
 */
final class PullRequests {
    private PullRequests() {
    }

    /** Handles a pull request on the consumers' thread. */
    static void next(Consumers consumers, JsConsumer consumer, StoredStream stream, String reply, byte[] body) {
        if (reply == null) {
            return;
        }
        if (consumer.config.push()) {
            consumer.status(reply, null, "NATS/1.0 409 Consumer is push based\r\n\r\n");
            return;
        }
        long now = System.nanoTime();
        int batch = 1;
        long expires = 0;
        long maxBytes = 0;
        long heartbeat = 0;
        boolean noWait = false;
        String text = new String(body, StandardCharsets.UTF_8).trim();
        if (text.startsWith("{")) {
            JsonNode json;
            try {
                json = JsConsumerConfig.MAPPER.readTree(text);
            } catch (IOException e) {
                json = null;
            }
            if (json == null || !json.isObject() || !integral(json, "batch") || !integral(json, "expires")
                    || !integral(json, "max_bytes") || !integral(json, "idle_heartbeat")
                    || json.has("no_wait") && !json.get("no_wait").isBoolean()) {
                consumer.status(reply, null, "NATS/1.0 400 Bad Request - invalid request\r\n\r\n");
                return;
            }
            batch = (int) Math.min(Integer.MAX_VALUE, json.path("batch").asLong(0));
            expires = json.path("expires").asLong(0);
            maxBytes = json.path("max_bytes").asLong(0);
            heartbeat = json.path("idle_heartbeat").asLong(0);
            noWait = json.path("no_wait").asBoolean(false);
            if (heartbeat > 0 && heartbeat * 2 > expires) {
                consumer.status(reply, null, "NATS/1.0 400 Bad Request - heartbeat value too large\r\n\r\n");
                return;
            }
        } else if (!text.isEmpty()) {
            try {
                batch = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                batch = 1;
            }
        }
        JsConsumerConfig config = consumer.config;
        if (config.maxBatch() > 0 && batch > config.maxBatch()) {
            consumer.status(reply, null, "NATS/1.0 409 Exceeded MaxRequestBatch of " + config.maxBatch() + "\r\n\r\n");
            return;
        }
        if (expires > 0 && config.maxExpiresNanos() > 0 && expires > config.maxExpiresNanos()) {
            consumer.status(reply, null, "NATS/1.0 409 Exceeded MaxRequestExpires of "
                    + GoDuration.format(config.maxExpiresNanos()) + "\r\n\r\n");
            return;
        }
        if (maxBytes > 0 && config.maxBytes() > 0 && maxBytes > config.maxBytes()) {
            consumer.status(reply, null, "NATS/1.0 409 Exceeded MaxRequestMaxBytes of " + config.maxBytes()
                    + "\r\n\r\n");
            return;
        }
        if (batch <= 0) {
            batch = 1; // nats-server treats a batch below one as one
        }
        if (noWait && expires == 0) {
            consumer.pump(stream, now); // earlier requests take what is there first
            if (consumer.numPending(stream) == 0 && consumer.dueCount() == 0) {
                consumer.status(reply, null, "NATS/1.0 404 No Messages\r\n\r\n");
                return;
            }
        }
        if (consumer.waiting.size() >= config.maxWaiting() || consumers.waitingTotal() >= Consumers.MAX_WAITING_TOTAL) {
            consumer.status(reply, null, "NATS/1.0 409 Exceeded MaxWaiting\r\n\r\n");
            return;
        }
        consumer.addRequest(new JsConsumer.PullRequest(reply, batch, maxBytes, noWait,
                expires > 0 ? now + expires : 0, heartbeat), now);
        consumer.pump(stream, now);
    }

    private static boolean integral(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() || value.isIntegralNumber() && value.canConvertToLong();
    }
}
