package io.ringbus.jetstream.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamInfo;

import java.time.Instant;

/**
 * The JSON shapes of JetStream's API responses, as nats-server 2.9.10 writes them (field order,
 * omitted empty fields, Go's time format).
 */
final class ApiJson {
    /** The one mapper (thread-safe once configured). */
    static final ObjectMapper MAPPER = new ObjectMapper();
    /** Go's zero time, which nats-server writes for a stream's first and last message when it has none. */
    static final String ZERO_TIME = "0001-01-01T00:00:00Z";
    /** The response types. */
    static final String PREFIX = "io.nats.jetstream.api.v1.";

    private ApiJson() {
    }

    /** @return a response of {@code type} (without the prefix) */
    static ObjectNode response(String type) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("type", PREFIX + type);
        return json;
    }

    /**
     * Marks a response whose error nats-server sends as an answer rather than as an API error (not
     * counted in {@code api.errors}); removed before it is sent.
     */
    static final String UNCOUNTED_ERROR = "\u0000uncounted";

    /** Adds the error object. */
    static ObjectNode error(ObjectNode response, ApiError error) {
        ObjectNode body = response.putObject("error");
        body.put("code", error.code());
        body.put("err_code", error.errCode());
        body.put("description", error.description());
        return response;
    }

    /** Adds {@code config}, {@code created} and {@code state} of a stream (nats-server's StreamInfo). */
    static ObjectNode streamInfo(ObjectNode target, StoredStream stream, StreamCatalog.Entry entry) {
        target.set("config", entry.config().toJson());
        target.put("created", entry.created().toString());
        target.set("state", state(stream));
        return target;
    }

    /** nats-server's StreamState for what the store holds now. */
    static ObjectNode state(StoredStream stream) {
        StreamInfo info = stream.info();
        ObjectNode state = MAPPER.createObjectNode();
        boolean empty = info.messages() == 0;
        state.put("messages", info.messages());
        state.put("bytes", info.bytes());
        long first = empty ? (info.lastSequence() == 0 ? 0 : info.lastSequence() + 1) : info.firstSequence();
        state.put("first_seq", first);
        state.put("first_ts", empty ? ZERO_TIME : time(stream.read(info.firstSequence())));
        state.put("last_seq", info.lastSequence());
        state.put("last_ts", info.lastSequence() == 0 ? ZERO_TIME : time(stream.read(info.lastSequence())));
        long subjects = empty ? 0 : stream.subjectCount();
        if (subjects > 0) {
            state.put("num_subjects", subjects);
        }
        if (info.deleted() > 0) {
            state.put("num_deleted", info.deleted());
        }
        state.put("consumer_count", 0);
        if (stream.config().keyDedupBytes() > 0) { // ringbus only, as the config's ringbus_key_dedup_bytes
            StreamInfo.KeyedIds keyed = info.keyedIds();
            ObjectNode ids = state.putObject("ringbus_key_dedup");
            ids.put("keys", keyed.keys());
            ids.put("bytes", keyed.bytes());
            ids.put("evicted", keyed.evicted());
            ids.put("duplicates", keyed.duplicates());
        }
        return state;
    }

    private static String time(StoredMessage message) {
        return message == null ? ZERO_TIME : Instant.ofEpochMilli(message.timestampMillis()).toString();
    }

    /** @return the bytes of {@code json} */
    static byte[] bytes(ObjectNode json) {
        try {
            return MAPPER.writeValueAsBytes(json);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a response that cannot be written: " + e, e);
        }
    }
}
