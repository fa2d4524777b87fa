package io.ringbus.jetstream.internal.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.StoredStream;

import java.time.Instant;

/**
 * A consumer as JSON: nats-server's {@code ConsumerInfo} for the API, and the document a durable
 * consumer is kept as ({@link ConsumerFiles}). Called on the consumers' thread.
 */
final class ConsumerJson {
    private ConsumerJson() {
    }

    /** @return nats-server's ConsumerInfo (without the response type) */
    static ObjectNode info(JsConsumer c, ObjectNode target, StoredStream stored) {
        target.put("stream_name", c.stream);
        target.put("name", c.name());
        target.put("created", c.createdText);
        target.set("config", c.config.toJson());
        ObjectNode delivered = target.putObject("delivered");
        delivered.put("consumer_seq", c.dseq - 1);
        delivered.put("stream_seq", Math.max(0, (c.start.isEmpty() ? c.sseq : c.start.first()) - 1));
        if (c.lastDeliveredMillis > 0) {
            delivered.put("last_active", Instant.ofEpochMilli(c.lastDeliveredMillis).toString());
        }
        ObjectNode floor = target.putObject("ack_floor");
        floor.put("consumer_seq", c.ackFloorConsumer);
        floor.put("stream_seq", c.ackFloorStream);
        target.put("num_ack_pending", c.pending.size());
        target.put("num_redelivered", c.redelivered.size());
        target.put("num_waiting", c.waiting.size());
        target.put("num_pending", c.numPending(stored));
        if (c.pushBound()) {
            target.put("push_bound", true);
        }
        return target;
    }

    /** @return the state to persist */
    static ObjectNode state(JsConsumer c) {
        ObjectNode json = JsConsumerConfig.MAPPER.createObjectNode();
        json.put("created", c.createdText);
        json.set("config", c.config.toJson());
        json.put("sseq", c.sseq);
        json.put("dseq", c.dseq);
        json.put("floor_stream", c.ackFloorStream);
        json.put("floor_consumer", c.ackFloorConsumer);
        ArrayNode out = json.putArray("pending");
        c.pending.forEach((seq, entry) -> out.addArray().add(seq).add(entry[0]).add(entry[1])
                .add(c.redelivered.getOrDefault(seq, 1)));
        ArrayNode starts = json.putArray("start");
        c.start.forEach(starts::add);
        return json;
    }

    /** Restores a saved consumer: every message it had out is due again at once. */
    static void restore(JsConsumer c, JsonNode state, long now) {
        c.sseq = state.get("sseq").asLong();
        c.dseq = state.get("dseq").asLong();
        c.ackFloorStream = state.get("floor_stream").asLong();
        c.ackFloorConsumer = state.get("floor_consumer").asLong();
        for (JsonNode entry : state.get("pending")) {
            long seq = entry.get(0).asLong();
            c.pending.put(seq, new long[] {entry.get(1).asLong(), entry.get(2).asLong(), now});
            c.dueNow(now);
            int count = entry.get(3).asInt();
            if (count > 1) {
                c.redelivered.put(seq, count);
            }
        }
        for (JsonNode seq : state.get("start")) {
            c.start.add(seq.asLong());
        }
    }
}
