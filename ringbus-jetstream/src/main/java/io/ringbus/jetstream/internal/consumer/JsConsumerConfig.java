package io.ringbus.jetstream.internal.consumer;

import io.ringbus.jetstream.internal.ApiError;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A consumer's configuration as JetStream's API carries it (nats-server 2.9.10's
 * {@code ConsumerConfig}: durations in nanoseconds, empty fields omitted), parsed, given nats-server's
 * defaults and written back in its field order. Immutable.
 *
 * @param durable           {@code durable_name}, or null
 * @param name              {@code name}, or null
 * @param description       or null
 * @param deliverPolicy     all, last, new, by_start_sequence, by_start_time, last_per_subject
 * @param optStartSeq       0 when unset
 * @param optStartTime      null when unset
 * @param ackPolicy         none, all, explicit
 * @param ackWaitNanos      0 when unset
 * @param maxDeliver        -1 for no limit
 * @param backoffNanos      redelivery delays
 * @param filterSubject     or null
 * @param replayPolicy      instant (original is refused)
 * @param maxWaiting        pull requests waiting at once
 * @param maxAckPending     0 when unset
 * @param heartbeatNanos    {@code idle_heartbeat}
 * @param flowControl       push flow control
 * @param headersOnly       deliveries carry the headers and {@code Nats-Msg-Size}, no payload
 * @param maxBatch          {@code max_batch}
 * @param maxExpiresNanos   {@code max_expires}
 * @param maxBytes          {@code max_bytes}
 * @param deliverSubject    push: where messages go; null for pull
 * @param deliverGroup      push: the queue group, or null
 * @param inactiveNanos     {@code inactive_threshold}
 * @param replicas          {@code num_replicas}
 * @param memStorage        state kept in memory only
 * @param unsupported       the fields ringbus does not honour, named with their values, or null
 */
record JsConsumerConfig(String durable, String name, String description, String deliverPolicy, long optStartSeq,
                        Instant optStartTime, String ackPolicy, long ackWaitNanos, int maxDeliver,
                        List<Long> backoffNanos, String filterSubject, String replayPolicy, int maxWaiting,
                        int maxAckPending, long heartbeatNanos, boolean flowControl, boolean headersOnly, int maxBatch,
                        long maxExpiresNanos, int maxBytes, String deliverSubject, String deliverGroup,
                        long inactiveNanos, int replicas, boolean memStorage, String unsupported) {
    static final ObjectMapper MAPPER = new ObjectMapper();
    /** nats-server's JSWaitQueueDefaultMax. */
    static final int DEFAULT_MAX_WAITING = 512;
    /** nats-server's JsAckWaitDefault. */
    static final long DEFAULT_ACK_WAIT_NANOS = Duration.ofSeconds(30).toNanos();
    /** nats-server's JsDefaultMaxAckPending. */
    static final int DEFAULT_MAX_ACK_PENDING = 1000;
    /** nats-server's JSMaxDescriptionLen. */
    static final int MAX_DESCRIPTION = 4 * 1024;
    /** nats-server's JSMaxNameLen. */
    static final int MAX_NAME = 255;

    private static final Set<String> DELIVER = Set.of("all", "last", "new", "by_start_sequence", "by_start_time",
            "last_per_subject");
    private static final Set<String> ACK = Set.of("none", "all", "explicit");
    private static final Set<String> KNOWN = Set.of("durable_name", "name", "description", "deliver_policy",
            "opt_start_seq", "opt_start_time", "ack_policy", "ack_wait", "max_deliver", "backoff", "filter_subject",
            "replay_policy", "rate_limit_bps", "sample_freq", "max_waiting", "max_ack_pending", "idle_heartbeat",
            "flow_control", "headers_only", "max_batch", "max_expires", "max_bytes", "deliver_subject",
            "deliver_group", "inactive_threshold", "num_replicas", "mem_storage", "direct");

    /** @return whether it is a push consumer */
    boolean push() {
        return deliverSubject != null;
    }

    /** @return whether it is durable (kept without interest) */
    boolean isDurable() {
        return durable != null;
    }

    /**
     * Parses {@code config} of a create request.
     *
     * @throws ConsumerError invalid JSON (10025) when a field has the wrong type
     */
    static JsConsumerConfig parse(JsonNode config) {
        if (config == null || !config.isObject()) {
            throw ConsumerError.of(ApiError.INVALID_JSON);
        }
        List<String> unsupported = new ArrayList<>();
        long rate = number(config, "rate_limit_bps");
        if (rate != 0) {
            unsupported.add("rate_limit_bps=" + rate);
        }
        String sample = text(config, "sample_freq");
        if (sample != null) {
            unsupported.add("sample_freq=" + sample);
        }
        if (flag(config, "direct")) {
            unsupported.add("direct=true");
        }
        String replay = enumText(config, "replay_policy", Set.of("instant", "original"), "instant");
        if (replay.equals("original")) {
            unsupported.add("replay_policy=original");
        }
        for (Iterator<String> names = config.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (!KNOWN.contains(field)) {
                unsupported.add(field);
            }
        }
        List<Long> backoff = new ArrayList<>();
        JsonNode delays = config.get("backoff");
        if (delays != null && !delays.isNull()) {
            if (!delays.isArray()) {
                throw ConsumerError.of(ApiError.INVALID_JSON);
            }
            for (JsonNode delay : delays) {
                if (!delay.isIntegralNumber()) {
                    throw ConsumerError.of(ApiError.INVALID_JSON);
                }
                backoff.add(delay.asLong());
            }
        }
        Instant start = null;
        String startText = text(config, "opt_start_time");
        if (startText != null) {
            try {
                start = Instant.parse(startText);
            } catch (DateTimeParseException e) {
                throw ConsumerError.of(ApiError.INVALID_JSON);
            }
        }
        return new JsConsumerConfig(text(config, "durable_name"), text(config, "name"), text(config, "description"),
                enumText(config, "deliver_policy", DELIVER, "all"), number(config, "opt_start_seq"), start,
                enumText(config, "ack_policy", ACK, "none"), number(config, "ack_wait"),
                (int) number(config, "max_deliver"), List.copyOf(backoff), text(config, "filter_subject"), replay,
                (int) number(config, "max_waiting"), (int) number(config, "max_ack_pending"),
                number(config, "idle_heartbeat"), flag(config, "flow_control"), flag(config, "headers_only"),
                (int) number(config, "max_batch"),
                number(config, "max_expires"), (int) number(config, "max_bytes"), text(config, "deliver_subject"),
                text(config, "deliver_group"), number(config, "inactive_threshold"),
                (int) number(config, "num_replicas"), flag(config, "mem_storage"), unsupported.isEmpty() ? null : String.join(", ", unsupported));
    }

    /**
     * @return with nats-server's defaults ({@code setConsumerConfigDefaults}; an ephemeral's
     *         inactive_threshold) and {@code name} set (null: as it is)
     */
    JsConsumerConfig withDefaults(String consumerName) {
        long inactive = durable == null && inactiveNanos == 0 ? 5_000_000_000L : inactiveNanos;
        boolean acks = !ackPolicy.equals("none");
        int waiting = deliverSubject == null && maxWaiting == 0 ? DEFAULT_MAX_WAITING : maxWaiting;
        long ackWait = ackWaitNanos == 0 && acks ? DEFAULT_ACK_WAIT_NANOS : ackWaitNanos;
        if (!backoffNanos.isEmpty()) {
            ackWait = backoffNanos.get(0);
        }
        int pending = acks && maxAckPending == 0 ? DEFAULT_MAX_ACK_PENDING : maxAckPending;
        return new JsConsumerConfig(durable, consumerName, description, deliverPolicy, optStartSeq, optStartTime,
                ackPolicy, ackWait, maxDeliver == 0 ? -1 : maxDeliver, backoffNanos, filterSubject, replayPolicy,
                waiting, pending, heartbeatNanos, flowControl, headersOnly, maxBatch, maxExpiresNanos, maxBytes, deliverSubject,
                deliverGroup, inactive, replicas, memStorage, unsupported);
    }

    /** @return the JSON nats-server writes for it, in its field order */
    ObjectNode toJson() {
        ObjectNode json = MAPPER.createObjectNode();
        putText(json, "durable_name", durable);
        putText(json, "name", name);
        putText(json, "description", description);
        json.put("deliver_policy", deliverPolicy);
        putNumber(json, "opt_start_seq", optStartSeq);
        if (optStartTime != null) {
            json.put("opt_start_time", optStartTime.toString());
        }
        json.put("ack_policy", ackPolicy);
        putNumber(json, "ack_wait", ackWaitNanos);
        putNumber(json, "max_deliver", maxDeliver);
        if (!backoffNanos.isEmpty()) {
            ArrayNode delays = json.putArray("backoff");
            backoffNanos.forEach(delays::add);
        }
        putText(json, "filter_subject", filterSubject);
        json.put("replay_policy", replayPolicy);
        putNumber(json, "max_waiting", maxWaiting);
        putNumber(json, "max_ack_pending", maxAckPending);
        putNumber(json, "idle_heartbeat", heartbeatNanos);
        if (flowControl) {
            json.put("flow_control", true);
        }
        if (headersOnly) {
            json.put("headers_only", true);
        }
        putNumber(json, "max_batch", maxBatch);
        putNumber(json, "max_expires", maxExpiresNanos);
        putNumber(json, "max_bytes", maxBytes);
        putText(json, "deliver_subject", deliverSubject);
        putText(json, "deliver_group", deliverGroup);
        putNumber(json, "inactive_threshold", inactiveNanos);
        json.put("num_replicas", replicas);
        if (memStorage) {
            json.put("mem_storage", true);
        }
        return json;
    }

    private static void putText(ObjectNode json, String field, String value) {
        if (value != null) {
            json.put(field, value);
        }
    }

    private static void putNumber(ObjectNode json, String field, long value) {
        if (value != 0) {
            json.put(field, value);
        }
    }

    private static String text(JsonNode config, String field) {
        JsonNode value = config.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw ConsumerError.of(ApiError.INVALID_JSON);
        }
        return value.asText().isEmpty() ? null : value.asText();
    }

    private static String enumText(JsonNode config, String field, Set<String> allowed, String absent) {
        String value = text(config, field);
        if (value == null) {
            return absent;
        }
        if (!allowed.contains(value)) {
            throw ConsumerError.of(ApiError.INVALID_JSON); // Go's UnmarshalJSON of the enum fails
        }
        return value;
    }

    private static long number(JsonNode config, String field) {
        JsonNode value = config.get(field);
        if (value == null || value.isNull()) {
            return 0;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw ConsumerError.of(ApiError.INVALID_JSON);
        }
        long number = value.asLong();
        if (!field.equals("opt_start_seq") && !field.equals("ack_wait") && !field.endsWith("heartbeat")
                && !field.equals("max_expires") && !field.equals("inactive_threshold") && !field.equals("rate_limit_bps")
                && (number > Integer.MAX_VALUE || number < Integer.MIN_VALUE)) {
            throw ConsumerError.of(ApiError.INVALID_JSON); // Go's int overflows
        }
        return number;
    }

    private static boolean flag(JsonNode config, String field) {
        JsonNode value = config.get(field);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw ConsumerError.of(ApiError.INVALID_JSON);
        }
        return value.asBoolean();
    }
}
