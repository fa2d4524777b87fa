package io.ringbus.jetstream.internal.consumer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.ringbus.core.StoredStream;
import io.ringbus.core.wire.NatsHeaderBlock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

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
            consumer.status(reply, null, NatsHeaderBlock.statusBlock("409 Consumer is push based"));
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
            Request parsed = Request.parse(text);
            if (parsed == null) {
                consumer.status(reply, null, NatsHeaderBlock.statusBlock("400 Bad Request - invalid request"));
                return;
            }
            batch = (int) Math.min(Integer.MAX_VALUE, parsed.batch);
            expires = parsed.expires;
            maxBytes = parsed.maxBytes;
            heartbeat = parsed.heartbeat;
            noWait = parsed.noWait;
            if (heartbeat > 0 && heartbeat * 2 > expires) {
                consumer.status(reply, null, NatsHeaderBlock.statusBlock("400 Bad Request - heartbeat value too large"));
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
            consumer.status(reply, null, NatsHeaderBlock.statusBlock("409 Exceeded MaxRequestBatch of " + config.maxBatch()));
            return;
        }
        if (expires > 0 && config.maxExpiresNanos() > 0 && expires > config.maxExpiresNanos()) {
            consumer.status(reply, null, NatsHeaderBlock.statusBlock("409 Exceeded MaxRequestExpires of "
                    + GoDuration.format(config.maxExpiresNanos())));
            return;
        }
        if (maxBytes > 0 && config.maxBytes() > 0 && maxBytes > config.maxBytes()) {
            consumer.status(reply, null, NatsHeaderBlock.statusBlock("409 Exceeded MaxRequestMaxBytes of "
                    + config.maxBytes()));
            return;
        }
        if (batch <= 0) {
            batch = 1; // nats-server treats a batch below one as one
        }
        if (noWait && expires == 0) {
            consumer.pump(stream, now); // earlier requests take what is there first
            if (consumer.numPending(stream) == 0 && consumer.dueCount() == 0) {
                consumer.status(reply, null, NatsHeaderBlock.statusBlock("404 No Messages"));
                return;
            }
        }
        if (consumer.waiting.size() >= config.maxWaiting() || consumers.waitingTotal() >= Consumers.MAX_WAITING_TOTAL) {
            consumer.status(reply, null, NatsHeaderBlock.statusBlock("409 Exceeded MaxWaiting"));
            return;
        }
        consumer.addRequest(new JsConsumer.PullRequest(reply, batch, maxBytes, noWait,
                expires > 0 ? now + expires : 0, heartbeat), now);
        consumer.pump(stream, now);
    }

    /**
     * A JSON pull request's fields, read with the streaming parser (one request per fetch: no tree
     * built). As a tree would be read: the last of a repeated field counts; a field absent or null is
     * 0 (false); unknown fields are skipped.
     */
    private static final class Request {
        private static final List<String> FIELDS = List.of("batch", "expires", "max_bytes", "idle_heartbeat", "no_wait");

        long batch;
        long expires;
        long maxBytes;
        long heartbeat;
        boolean noWait;

        /** @return the request, or null when it is not an object or a field has the wrong type */
        static Request parse(String text) {
            Request request = new Request();
            // Each field's last value: checked once all are read, as a tree keeps the last.
            JsonToken[] kinds = new JsonToken[FIELDS.size()];
            boolean[] fits = new boolean[FIELDS.size()];
            long[] values = new long[FIELDS.size()];
            try (JsonParser parser = JsConsumerConfig.MAPPER.getFactory().createParser(text)) {
                if (parser.nextToken() != JsonToken.START_OBJECT) {
                    return null;
                }
                for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                    int field = FIELDS.indexOf(parser.currentName());
                    JsonToken value = parser.nextToken();
                    if (field < 0) {
                        parser.skipChildren();
                        continue;
                    }
                    kinds[field] = value;
                    fits[field] = value == JsonToken.VALUE_NUMBER_INT
                            && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
                    values[field] = fits[field] ? parser.getLongValue() : 0;
                    parser.skipChildren();
                }
            } catch (IOException e) {
                return null;
            }
            for (int field = 0; field < 4; field++) {
                if (kinds[field] != null && kinds[field] != JsonToken.VALUE_NULL && !fits[field]) {
                    return null;
                }
            }
            JsonToken noWait = kinds[4];
            if (noWait != null && noWait != JsonToken.VALUE_TRUE && noWait != JsonToken.VALUE_FALSE) {
                return null;
            }
            request.batch = values[0];
            request.expires = values[1];
            request.maxBytes = values[2];
            request.heartbeat = values[3];
            request.noWait = noWait == JsonToken.VALUE_TRUE;
            return request;
        }
    }
}
