package io.ringbus.jetstream.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.StreamConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * A JetStream stream configuration ({@code StreamConfig} of nats-server 2.9.10): read from a
 * request, completed with nats-server's defaults ({@link #normalized}), checked against what the
 * embedded store can honour ({@link #unsupported}), written back in nats-server's field order and
 * mapped to the store's {@link StreamConfig} ({@link #toStore}). Immutable.
 *
 * @param name               the stream's name
 * @param description        its description, or null
 * @param subjects           its subjects (nats-server: the name when none)
 * @param retention          limits, interest or workqueue
 * @param maxConsumers       the most consumers, -1 unlimited
 * @param maxMsgs            the most messages, -1 unlimited
 * @param maxBytes           the most bytes, -1 unlimited
 * @param maxAgeNanos        how long a message is kept, 0 for ever
 * @param maxMsgsPerSubject  the most messages per subject, -1 unlimited
 * @param maxMsgSize         the largest message, -1 unlimited
 * @param discard            old or new
 * @param storage            file or memory
 * @param replicas           copies (num_replicas)
 * @param noAck              whether publishes get no PubAck
 * @param duplicateWindowNanos the duplicate window
 * @param allowDirect        direct get allowed
 * @param mirrorDirect       direct get of a mirror
 * @param sealed             no more changes
 * @param denyDelete         message deletes refused
 * @param denyPurge          purges refused
 * @param allowRollup        Nats-Rollup headers honoured
 * @param discardNewPerSubject discard new per subject
 * @param mirrorOrSources    whether the request named a mirror, sources or republish (not supported)
 * @param keyDedupBytes      ringbus's own {@code ringbus_key_dedup_bytes}: 0 (off), or the memory the
 *                           stream's per-key outbox ids may take ({@link StreamConfig#keyDedupBytes()});
 *                           nats-server ignores the field
 */
public record JsStreamConfig(String name, String description, List<String> subjects, String retention,
                             long maxConsumers, long maxMsgs, long maxBytes, long maxAgeNanos, long maxMsgsPerSubject,
                             long maxMsgSize, String discard, String storage, int replicas, boolean noAck,
                             long duplicateWindowNanos, boolean allowDirect, boolean mirrorDirect, boolean sealed,
                             boolean denyDelete, boolean denyPurge, boolean allowRollup, boolean discardNewPerSubject,
                             boolean mirrorOrSources, long keyDedupBytes) {
    /** The request's field that turns per-key outbox ids on (ringbus only; nats-server ignores unknown fields). */
    static final String KEY_DEDUP_FIELD = "ringbus_key_dedup_bytes";
    /** nats-server's longest stream name (JSMaxNameLen). */
    static final int MAX_NAME = 255;
    /** nats-server's longest description (JSMaxDescriptionLen). */
    static final int MAX_DESCRIPTION = 4 * 1024;
    private static final long DEFAULT_DUPLICATES = Duration.ofMinutes(2).toNanos();
    private static final long MIN_WINDOW = Duration.ofMillis(100).toNanos();

    /**
     * Reads a configuration as Go's {@code json.Unmarshal} would: unknown fields ignored, a field
     * of the wrong type or an unknown enum value is invalid JSON.
     *
     * @throws ApiError.Failure {@link ApiError#INVALID_JSON}
     */
    static JsStreamConfig parse(JsonNode json) {
        if (json == null || !json.isObject()) {
            throw ApiError.INVALID_JSON.failure();
        }
        List<String> subjects = new ArrayList<>();
        JsonNode list = json.get("subjects");
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw ApiError.INVALID_JSON.failure();
            }
            for (JsonNode subject : list) {
                subjects.add(text(subject));
            }
        }
        boolean elsewhere = present(json, "mirror") || present(json, "sources") && json.get("sources").size() > 0
                || present(json, "republish");
        return new JsStreamConfig(text(json.get("name")), text(json.get("description")), List.copyOf(subjects),
                choice(json.get("retention"), "limits", "limits", "interest", "workqueue"),
                number(json.get("max_consumers")), number(json.get("max_msgs")), number(json.get("max_bytes")),
                number(json.get("max_age")), number(json.get("max_msgs_per_subject")), number(json.get("max_msg_size")),
                choice(json.get("discard"), "old", "old", "new"), choice(json.get("storage"), "file", "file", "memory"),
                (int) number(json.get("num_replicas")), flag(json.get("no_ack")), number(json.get("duplicate_window")),
                flag(json.get("allow_direct")), flag(json.get("mirror_direct")), flag(json.get("sealed")),
                flag(json.get("deny_delete")), flag(json.get("deny_purge")), flag(json.get("allow_rollup_hdrs")),
                flag(json.get("discard_new_per_subject")), elsewhere, keyDedupBytes(json.get(KEY_DEDUP_FIELD)));
    }

    /** Ringbus's own field: a value nats-server would not read is refused naming it, not as "invalid JSON". */
    private static long keyDedupBytes(JsonNode value) {
        if (value != null && !value.isNull() && !(value.isIntegralNumber() && value.canConvertToLong())) {
            throw ApiError.invalidConfig(KEY_DEDUP_FIELD + " must be a whole number of bytes: " + value).failure();
        }
        return number(value);
    }

    /**
     * nats-server's {@code checkStreamCfg} for a standalone server: defaults filled in, then the
     * checks in its order.
     *
     * @throws ApiError.Failure the error nats-server answers
     */
    JsStreamConfig normalized() {
        if (name == null || name.isEmpty() || name.contains(".") || name.contains("*") || name.contains(">")
                || name.chars().anyMatch(Character::isWhitespace)) {
            throw ApiError.invalidConfig("stream name is required and can not contain '.', '*', '>'").failure();
        }
        if (name.length() > MAX_NAME) {
            throw ApiError.invalidConfig("stream name is too long, maximum allowed is " + MAX_NAME).failure();
        }
        if (description != null && description.length() > MAX_DESCRIPTION) {
            throw ApiError.invalidConfig("stream description is too long, maximum allowed is " + MAX_DESCRIPTION)
                    .failure();
        }
        int copies = replicas == 0 ? 1 : replicas;
        if (copies > 5) {
            throw ApiError.invalidConfig("maximum replicas is 5").failure();
        }
        if (copies < 0) {
            throw ApiError.REPLICAS_NEGATIVE.failure();
        }
        long window = duplicateWindowNanos;
        if (window == 0 && !mirrorOrSources) {
            window = maxAgeNanos != 0 && maxAgeNanos < DEFAULT_DUPLICATES ? maxAgeNanos : DEFAULT_DUPLICATES;
        }
        if (maxAgeNanos > 0 && maxAgeNanos < MIN_WINDOW) {
            throw ApiError.invalidConfig("max age needs to be >= 100ms").failure();
        }
        if (window < 0) {
            throw ApiError.invalidConfig("duplicates window can not be negative").failure();
        }
        if (maxAgeNanos != 0 && window > maxAgeNanos) {
            throw ApiError.invalidConfig("duplicates window can not be larger then max age").failure();
        }
        if (window > 0 && window < MIN_WINDOW) {
            throw ApiError.invalidConfig("duplicates window needs to be >= 100ms").failure();
        }
        if (denyPurge && allowRollup) {
            throw ApiError.invalidConfig("roll-ups require the purge permission").failure();
        }
        if (discardNewPerSubject && !discard.equals("new")) {
            throw ApiError.invalidConfig("discard new per subject requires discard new policy to be set").failure();
        }
        if (discardNewPerSubject && maxMsgsPerSubject <= 0) {
            throw ApiError.invalidConfig("discard new per subject requires max msgs per subject > 0").failure();
        }
        List<String> subs = subjects.isEmpty() ? List.of(name) : subjects;
        HashSet<String> seen = new HashSet<>();
        for (String subject : subs) {
            if (!seen.add(subject)) {
                throw ApiError.invalidConfig("duplicate subjects detected").failure();
            }
            if (!validSubject(subject)) {
                throw ApiError.invalidConfig("invalid subject").failure();
            }
            if (covers("$JS.API.>", subject)) {
                throw ApiError.invalidConfig("subjects overlap with jetstream api").failure();
            }
        }
        StreamSubjects.requireNoOverlap(subs);
        if (keyDedupBytes < 0 || keyDedupBytes > 0 && keyDedupBytes < StreamConfig.MIN_KEY_DEDUP_BYTES) {
            throw ApiError.invalidConfig(KEY_DEDUP_FIELD + " must be 0 (off) or at least "
                    + StreamConfig.MIN_KEY_DEDUP_BYTES + ": " + keyDedupBytes).failure();
        }
        return new JsStreamConfig(name, description, subs, retention, maxConsumers == 0 ? -1 : maxConsumers,
                maxMsgs == 0 ? -1 : maxMsgs, maxBytes == 0 ? -1 : maxBytes, maxAgeNanos,
                maxMsgsPerSubject == 0 ? -1 : maxMsgsPerSubject, maxMsgSize == 0 ? -1 : maxMsgSize, discard, storage,
                copies, noAck, window, allowDirect, mirrorDirect, sealed, denyDelete, denyPurge, allowRollup,
                discardNewPerSubject, mirrorOrSources, keyDedupBytes);
    }

    /**
     * @return what the embedded store cannot honour yet, naming the value, or null when it can
     *         all be honoured (docs/jetstream.md lists them)
     */
    String unsupported() {
        List<String> refused = new ArrayList<>();
        if (!name.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_'))) {
            refused.add("a name other than letters, digits, '-' and '_' (name=" + name + ")");
        }
        unless(refused, maxMsgSize < -1, "max_msg_size=" + maxMsgSize);
        unless(refused, maxMsgs < -1 || maxBytes < -1 || maxMsgsPerSubject < -1,
                "a limit below -1 (max_msgs=" + maxMsgs + ", max_bytes=" + maxBytes + ", max_msgs_per_subject="
                        + maxMsgsPerSubject + ")");
        unless(refused, maxAgeNanos < 0, "max_age=" + maxAgeNanos);
        unless(refused, noAck, "no_ack=true");
        unless(refused, mirrorDirect, "mirror_direct=true");
        unless(refused, mirrorOrSources, "mirror, sources or republish");
        return refused.isEmpty() ? null : "not supported by ringbus yet: " + String.join(", ", refused);
    }

    private static void unless(List<String> refused, boolean condition, String what) {
        if (condition) {
            refused.add(what);
        }
    }

    /** @return the store's configuration of this stream */
    StreamConfig toStore() {
        StreamConfig config = StreamConfig.of(subjects.getFirst()).withName(name).withSubjects(subjects)
                .withAdmission(new StreamConfig.Admission(discard.equals("new") ? StreamConfig.Discard.NEW
                        : StreamConfig.Discard.OLD, discardNewPerSubject, maxMsgSize, allowRollup, sealed))
                .withMedium(storage.equals("memory") ? StreamConfig.Medium.MEMORY : StreamConfig.Medium.FILE)
                .withDuplicateWindow(Duration.ofNanos(duplicateWindowNanos))
                .withRetention(retention.equals("workqueue") ? StreamConfig.Retention.WORK_QUEUE
                        : StreamConfig.Retention.LIMITS);
        if (maxAgeNanos > 0) {
            config = config.withMaxAge(Duration.ofNanos(maxAgeNanos));
        }
        return config.withMaxBytes(maxBytes).withMaxMessages(maxMsgs).withMaxMessagesPerSubject(maxMsgsPerSubject)
                .withKeyDedupBytes(keyDedupBytes);
    }

    /**
     * nats-server's {@code configUpdateCheck} after storage and retention: what an update may not
     * undo, and a sealed stream's settings (no age limit, discard new, no deletes, purges or roll-ups).
     *
     * @return {@code update} as it applies
     * @throws ApiError.Failure the error nats-server answers
     */
    static JsStreamConfig checkedUpdate(JsStreamConfig old, JsStreamConfig update) {
        if (!update.sealed && old.sealed) {
            throw ApiError.invalidConfig("stream configuration update can not unseal a sealed stream").failure();
        }
        if (!update.denyDelete && old.denyDelete) {
            throw ApiError.invalidConfig("stream configuration update can not cancel deny message deletes").failure();
        }
        if (!update.denyPurge && old.denyPurge) {
            throw ApiError.invalidConfig("stream configuration update can not cancel deny purge").failure();
        }
        if (!update.sealed) {
            return update;
        }
        return new JsStreamConfig(update.name, update.description, update.subjects, update.retention,
                update.maxConsumers, update.maxMsgs, update.maxBytes, 0, update.maxMsgsPerSubject, update.maxMsgSize,
                "new", update.storage, update.replicas, update.noAck, update.duplicateWindowNanos, update.allowDirect,
                update.mirrorDirect, true, true, true, false, update.discardNewPerSubject, update.mirrorOrSources,
                update.keyDedupBytes);
    }

    /** @return the configuration a stream registered with {@code --durable} has, in JetStream's terms */
    static JsStreamConfig ofStore(StreamConfig store) {
        long age = store.maxAge() == null ? 0 : store.maxAge().toNanos();
        StreamConfig.Admission admits = store.admission();
        return new JsStreamConfig(store.name(), null, store.subjects(),
                store.retention() == StreamConfig.Retention.WORK_QUEUE ? "workqueue" : "limits", -1,
                store.maxMessages(), store.maxBytes(), age, store.maxMessagesPerSubject(), admits.maxMessageSize(),
                admits.discard() == StreamConfig.Discard.NEW ? "new" : "old",
                store.medium() == StreamConfig.Medium.MEMORY ? "memory" : "file", store.replicas(), false,
                store.duplicateWindow().toNanos(), false, false, admits.sealed(), false, false, admits.allowRollup(),
                admits.discardNewPerSubject(), false, store.keyDedupBytes());
    }

    /** @return the configuration as nats-server 2.9.10 writes it, fields in its order */
    ObjectNode toJson() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("name", name);
        if (description != null && !description.isEmpty()) {
            json.put("description", description);
        }
        ArrayNode subs = json.putArray("subjects");
        subjects.forEach(subs::add);
        json.put("retention", retention);
        json.put("max_consumers", maxConsumers);
        json.put("max_msgs", maxMsgs);
        json.put("max_bytes", maxBytes);
        json.put("max_age", maxAgeNanos);
        json.put("max_msgs_per_subject", maxMsgsPerSubject);
        json.put("max_msg_size", maxMsgSize);
        json.put("discard", discard);
        json.put("storage", storage);
        json.put("num_replicas", replicas);
        if (noAck) {
            json.put("no_ack", true);
        }
        json.put("duplicate_window", duplicateWindowNanos);
        json.put("allow_direct", allowDirect);
        json.put("mirror_direct", mirrorDirect);
        if (discardNewPerSubject) {
            json.put("discard_new_per_subject", true);
        }
        json.put("sealed", sealed);
        json.put("deny_delete", denyDelete);
        json.put("deny_purge", denyPurge);
        json.put("allow_rollup_hdrs", allowRollup);
        if (keyDedupBytes > 0) {
            json.put(KEY_DEDUP_FIELD, keyDedupBytes);
        }
        return json;
    }

    /** @return whether the subjects are the same set */
    boolean sameSubjects(JsStreamConfig other) {
        return new HashSet<>(subjects).equals(new HashSet<>(other.subjects));
    }

    private static boolean covers(String outer, String inner) {
        String[] o = outer.split("\\.", -1);
        String[] i = inner.split("\\.", -1);
        for (int k = 0; k < o.length; k++) {
            if (o[k].equals(">")) {
                return i.length > k;
            }
            if (k >= i.length || !o[k].equals("*") && !o[k].equals(i[k])) {
                return false;
            }
        }
        return o.length == i.length;
    }

    /** nats-server's IsValidSubject: no empty tokens, no whitespace, '>' only last. */
    private static boolean validSubject(String subject) {
        if (subject == null || subject.isEmpty()) {
            return false;
        }
        String[] tokens = subject.split("\\.", -1);
        for (int k = 0; k < tokens.length; k++) {
            String token = tokens[k];
            if (token.isEmpty() || token.chars().anyMatch(Character::isWhitespace)) {
                return false;
            }
            if (token.equals(">") && k != tokens.length - 1) {
                return false;
            }
        }
        return true;
    }

    private static boolean present(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value != null && !value.isNull();
    }

    private static String text(JsonNode value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw ApiError.INVALID_JSON.failure();
        }
        return value.asText();
    }

    private static long number(JsonNode value) {
        if (value == null || value.isNull()) {
            return 0;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw ApiError.INVALID_JSON.failure();
        }
        return value.asLong();
    }

    private static boolean flag(JsonNode value) {
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw ApiError.INVALID_JSON.failure();
        }
        return value.asBoolean();
    }

    private static String choice(JsonNode value, String absent, String... allowed) {
        String text = text(value);
        if (text == null) {
            return absent;
        }
        for (String option : allowed) {
            if (option.equals(text)) {
                return option;
            }
        }
        throw ApiError.INVALID_JSON.failure();
    }
}
