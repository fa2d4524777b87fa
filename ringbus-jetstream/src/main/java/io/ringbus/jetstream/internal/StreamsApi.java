package io.ringbus.jetstream.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.Subject;
import io.ringbus.jetstream.JetStreamSettings;
import io.ringbus.jetstream.internal.consumer.ConsumersApi;
import io.ringbus.server.spi.ApiRequest;
import io.ringbus.server.spi.Requester;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * JetStream's account and stream requests, answered as nats-server 2.9.10 answers them
 * ({@code server/jetstream_api.go}). Runs on the {@link ApiDispatcher}'s one thread.
 *
 * <p>Scopes: a stream's scope is the highest scope a subject it stores can have; a requester sees
 * and manages only streams within its scope ("stream not found" otherwise, and never listed), and
 * creating or moving a stream onto subjects above its scope is refused as nats-server refuses a
 * publish the user may not make (a permission violation, no reply).
 */
public final class StreamsApi {
    /** nats-server's page size for NAMES (JSApiNamesLimit). */
    static final int NAMES_LIMIT = 1024;
    /** nats-server's page size for LIST (JSApiListLimit). */
    static final int LIST_LIMIT = 256;

    private final Broker broker;
    private final Storage storage;
    private final StreamCatalog catalog;
    private final JetStreamSettings settings;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final MessagesApi messages;
    /** The consumer requests ({@code $JS.API.CONSUMER.>}), or null when none are served. */
    private volatile ConsumersApi consumers;

    private StreamsApi(Broker broker, Storage storage, StreamCatalog catalog, JetStreamSettings settings) {
        this.broker = broker;
        this.storage = storage;
        this.catalog = catalog;
        this.settings = settings;
        this.messages = new MessagesApi(catalog,
                (request, name) -> catalog.stream(name).filter(s -> mayManage(request.requester(), name)));
    }

    /**
     * Reloads the streams the API created and registers them with the broker.
     *
     * @param broker   the broker
     * @param storage  its store
     * @param settings the limits
     * @return the API
     */
    public static StreamsApi open(Broker broker, Storage storage, JetStreamSettings settings) {
        return new StreamsApi(broker, storage, StreamCatalog.open(broker, storage), settings);
    }

    /** Serves the consumer requests with {@code api}. */
    public void consumers(ConsumersApi api) {
        this.consumers = api;
        api.maxConsumersFrom(name -> catalog.stream(name).map(stream -> (int) catalog.entry(stream).config().maxConsumers())
                .orElse(0));
    }

    /** @return the JetStream retention of stream {@code name} ({@code limits} when there is none) */
    public String retentionOf(String name) {
        return catalog.stream(name).map(stream -> catalog.entry(stream).config().retention()).orElse("limits");
    }

    /** @return the streams now */
    public int count() {
        return catalog.streams().size();
    }

    /** @return the streams' JetStream configurations (for the monitor) */
    StreamCatalog catalog() {
        return catalog;
    }

    /** @return API requests answered, as nats-server counts them ({@code api.total}); any thread */
    public long apiTotal() {
        return total.get();
    }

    /** @return of those, the errors ({@code api.errors}); any thread */
    public long apiErrors() {
        return errors.get();
    }

    /** Answers a request the queue had no room for. */
    void refuseBusy(ApiRequest request) {
        total.incrementAndGet();
        errors.incrementAndGet();
        request.reply(null, ApiJson.bytes(ApiJson.error(ApiJson.response("error_response"), ApiError.UNAVAILABLE)));
    }

    /** Answers one request (a subject nats-server does not serve gets no answer, as from it). */
    void answer(ApiRequest request) {
        String[] tokens = request.subject().split("\\.", -1);
        if (tokens.length >= 5 && tokens[2].equals("DIRECT") && tokens[3].equals("GET")) {
            // Not an API request in nats-server's accounting: the stream answers it itself.
            int at = tokens.length == 5 ? -1 : "$JS.API.DIRECT.GET.".length() + tokens[4].length() + 1;
            messages.directGet(request, tokens[4], at < 0 ? null : request.subject().substring(at));
            return;
        }
        String kind = tokens.length >= 4 ? tokens[2] + "." + tokens[3] : tokens.length == 3 ? tokens[2] : "";
        ObjectNode response;
        ConsumersApi consumerApi = consumers;
        if (consumerApi != null && tokens.length >= 4 && tokens[2].equals("CONSUMER")) {
            response = consumerApi.answer(request, tokens);
            if (response != null) {
                total.incrementAndGet();
                errors.addAndGet(response.has("error") ? 1 : 0);
                try {
                    request.reply(null, ApiJson.bytes(response));
                } finally {
                    consumerApi.answered();
                }
            }
            return;
        }
        try {
            response = switch (tokens.length) {
                case 3 -> kind.equals("INFO") ? accountInfo(request) : null;
                case 4 -> switch (kind) {
                    case "STREAM.NAMES" -> names(request);
                    case "STREAM.LIST" -> list(request);
                    default -> null;
                };
                case 5 -> switch (kind) {
                    case "STREAM.CREATE" -> create(request, tokens[4]);
                    case "STREAM.UPDATE" -> update(request, tokens[4]);
                    case "STREAM.INFO" -> info(request, tokens[4]);
                    case "STREAM.DELETE" -> delete(request, tokens[4]);
                    case "STREAM.PURGE" -> messages.purge(request, tokens[4]);
                    default -> null;
                };
                case 6 -> !kind.equals("STREAM.MSG") ? null : switch (tokens[4]) {
                    case "GET" -> messageGet(request, tokens[5]);
                    case "DELETE" -> messages.delete(request, tokens[5]);
                    default -> null;
                };
                default -> null;
            };
        } catch (Refused refusal) {
            request.requester().refuse(request.subject());
            return;
        }
        if (response != null && consumerApi != null) {
            consumerApi.countConsumers(response);
        }
        if (response != null) {
            // As nats-server: a message got by MSG.GET is answered outside its API accounting.
            boolean message = response.has("message");
            if (!message) {
                total.incrementAndGet();
            }
            if (response.remove(ApiJson.UNCOUNTED_ERROR) == null && response.has("error")) {
                errors.incrementAndGet();
            }
            request.reply(null, ApiJson.bytes(response));
        }
    }

    /** The request touches subjects above the requester's scope: a permission violation, no reply. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused() {
            super(null, null, false, false);
        }
    }

    private ObjectNode accountInfo(ApiRequest request) {
        ObjectNode response = ApiJson.response("account_info_response");
        long bytes = 0;
        long memory = 0;
        int streams = 0;
        for (StoredStream stream : visible(request.requester())) {
            if (stream.config().medium() == io.ringbus.core.StreamConfig.Medium.MEMORY) {
                memory += stream.info().bytes();
            } else {
                bytes += stream.info().bytes();
            }
            streams++;
        }
        response.put("memory", memory);
        response.put("storage", bytes);
        response.put("streams", streams);
        response.put("consumers", consumers == null ? 0 : consumers.countVisible(request.requester().scope()));
        ObjectNode limits = response.putObject("limits");
        limits.put("max_memory", -1);
        limits.put("max_storage", -1);
        limits.put("max_streams", settings.maxStreams());
        limits.put("max_consumers", -1);
        limits.put("max_ack_pending", -1);
        limits.put("memory_max_stream_bytes", -1);
        limits.put("storage_max_stream_bytes", -1);
        limits.put("max_bytes_required", false);
        ObjectNode api = response.putObject("api");
        api.put("total", total.get());
        api.put("errors", errors.get());
        return response;
    }

    private ObjectNode create(ApiRequest request, String name) {
        ObjectNode response = ApiJson.response("stream_create_response");
        try {
            JsStreamConfig config = checked(request, name);
            Optional<StoredStream> existing = catalog.stream(name);
            if (existing.isPresent()) {
                if (!mayManage(request.requester(), name)) {
                    throw new Refused();
                }
                StreamCatalog.Entry entry = catalog.entry(existing.get());
                if (!entry.config().toJson().equals(config.toJson())) {
                    throw ApiError.STREAM_NAME_EXISTS.failure();
                }
                return ApiJson.streamInfo(response, existing.get(), entry).put("did_create", true);
            }
            requireSupported(config);
            if (catalog.streams().size() >= settings.maxStreams()) {
                throw ApiError.MAX_STREAMS.failure();
            }
            requireRoom(config, null);
            requireNoOverlap(config, null);
            Instant created = Instant.now();
            catalog.save(config, created);
            StoredStream stream;
            try {
                stream = broker.registerStream(config.toStore());
            } catch (IllegalArgumentException | StorageException e) {
                broker.deleteStream(name);
                catalog.forget(name);
                throw (e instanceof IllegalArgumentException ? ApiError.SUBJECT_OVERLAP
                        : ApiError.createFailed(e.getMessage())).failure();
            }
            return ApiJson.streamInfo(response, stream, catalog.entry(stream)).put("did_create", true);
        } catch (ApiError.Failure failure) {
            return ApiJson.error(response, failure.error);
        }
    }

    private ObjectNode update(ApiRequest request, String name) {
        ObjectNode response = ApiJson.response("stream_update_response");
        try {
            JsStreamConfig config = checked(request, name);
            StoredStream stream = catalog.stream(name).filter(s -> mayManage(request.requester(), name))
                    .orElseThrow(ApiError.STREAM_NOT_FOUND::failure);
            StreamCatalog.Entry entry = catalog.entry(stream);
            JsStreamConfig old = entry.config();
            if (old.maxConsumers() != config.maxConsumers()) {
                throw ApiError.invalidConfig("stream configuration update can not change MaxConsumers").failure();
            }
            if (!old.storage().equals(config.storage())) {
                throw ApiError.invalidConfig("stream configuration update can not change storage type").failure();
            }
            if (!old.retention().equals(config.retention())) {
                throw ApiError.invalidConfig("stream configuration update can not change retention policy")
                        .failure();
            }
            config = JsStreamConfig.checkedUpdate(old, config);
            requireSupported(config);
            requireRoom(config, name);
            requireNoOverlap(config, name);
            catalog.save(config, entry.created());
            if (!config.toStore().equals(stream.config())) {
                try {
                    stream = broker.updateStream(config.toStore());
                } catch (IllegalArgumentException e) {
                    catalog.save(old, entry.created());
                    throw ApiError.SUBJECT_OVERLAP.failure();
                } catch (StorageException | UnsupportedOperationException e) {
                    catalog.save(old, entry.created());
                    throw ApiError.updateFailed(e.getMessage()).failure();
                }
            }
            return ApiJson.streamInfo(response, stream, catalog.entry(stream));
        } catch (ApiError.Failure failure) {
            return ApiJson.error(response, failure.error);
        }
    }

    /** Parse, name checks, nats-server's checkStreamCfg, replicas, scope. */
    private JsStreamConfig checked(ApiRequest request, String name) {
        JsStreamConfig config = JsStreamConfig.parse(json(request.payload()));
        if (!name.equals(config.name())) {
            throw ApiError.STREAM_MISMATCH.failure();
        }
        StreamSubjects.requireWithinLimit(config.subjects(), name, catalog.streams(), settings.maxSubjects());
        KeyDedupLimit.require(config.keyDedupBytes(), name, catalog.streams(), settings.maxKeyDedupBytes());
        if (name.contains("/") || name.contains("\\")) {
            throw ApiError.NAME_WITH_PATH_SEPARATORS.failure();
        }
        if (config.sealed() && request.subject().contains(".CREATE.")) {
            throw ApiError.invalidConfig("stream configuration for create can not be sealed").failure();
        }
        JsStreamConfig normalized = config.normalized();
        if (normalized.replicas() > 1) {
            throw ApiError.REPLICAS_NOT_SUPPORTED.failure();
        }
        Scope scope = request.requester().scope();
        for (String subject : normalized.subjects()) {
            if (!scope.includes(broker.maxScopeOf(subject))) {
                throw new Refused();
            }
        }
        return normalized;
    }

    private static void requireSupported(JsStreamConfig config) {
        String unsupported = config.unsupported();
        if (unsupported != null) {
            throw ApiError.invalidConfig(unsupported).failure();
        }
    }

    /**
     * nats-server's reservation: the {@code max_bytes} of every stream that has one, this one's
     * included, must fit in the store's limit ({@link Storage#maxBytes}).
     */
    private void requireRoom(JsStreamConfig config, String self) {
        long max = storage.maxBytes();
        if (max < 0 || config.maxBytes() <= 0) {
            return;
        }
        long reserved = config.maxBytes();
        for (StoredStream stream : catalog.streams()) {
            if (!stream.config().name().equals(self) && stream.config().maxBytes() > 0) {
                reserved += stream.config().maxBytes();
            }
        }
        if (reserved > max) {
            throw ApiError.STORAGE_RESOURCES.failure();
        }
    }

    private void requireNoOverlap(JsStreamConfig config, String self) {
        for (StoredStream stream : catalog.streams()) {
            if (stream.config().name().equals(self)) {
                continue;
            }
            for (String subject : config.subjects()) {
                if (stream.config().overlaps(subject)) {
                    throw ApiError.SUBJECT_OVERLAP.failure();
                }
            }
        }
    }

    private ObjectNode info(ApiRequest request, String name) {
        ObjectNode response = ApiJson.response("stream_info_response");
        Optional<StoredStream> stream = catalog.stream(name).filter(s -> mayManage(request.requester(), name));
        if (stream.isEmpty()) {
            return paged(ApiJson.error(response, ApiError.STREAM_NOT_FOUND), 0, 0, 0);
        }
        paged(response, 0, 0, 0);
        return ApiJson.streamInfo(response, stream.get(), catalog.entry(stream.get()));
    }

    private ObjectNode delete(ApiRequest request, String name) {
        ObjectNode response = ApiJson.response("stream_delete_response");
        if (catalog.stream(name).filter(s -> mayManage(request.requester(), name)).isEmpty()) {
            return ApiJson.error(response, ApiError.STREAM_NOT_FOUND);
        }
        try {
            broker.deleteStream(name);
        } catch (StorageException | UnsupportedOperationException e) {
            return ApiJson.error(response, ApiError.deleteFailed(e.getMessage()));
        }
        catalog.forget(name);
        if (consumers != null) {
            consumers.streamGone(name);
        }
        return response.put("success", true);
    }

    private ObjectNode names(ApiRequest request) {
        return page(request, "stream_names_response", NAMES_LIMIT, (response, page) -> {
            if (page.isEmpty()) {
                response.putNull("streams"); // Go's nil slice
            } else {
                ArrayNode names = response.putArray("streams");
                page.forEach(stream -> names.add(stream.config().name()));
            }
        });
    }

    private ObjectNode list(ApiRequest request) {
        return page(request, "stream_list_response", LIST_LIMIT, (response, page) -> {
            ArrayNode infos = response.putArray("streams");
            for (StoredStream stream : page) {
                infos.add(ApiJson.streamInfo(ApiJson.MAPPER.createObjectNode(), stream, catalog.entry(stream)));
            }
        });
    }

    /**
     * NAMES and LIST: the requester's streams (its scope, the request's subject filter) from the
     * request's offset, at most {@code limit}, written into the response by {@code fill}.
     */
    private ObjectNode page(ApiRequest request, String type, int limit,
                            BiConsumer<ObjectNode, List<StoredStream>> fill) {
        ObjectNode response = ApiJson.response(type);
        List<StoredStream> streams;
        int offset;
        try {
            JsonNode filter = request.payload().length == 0 ? null : json(request.payload());
            offset = offset(filter);
            streams = filtered(request.requester(), filter);
        } catch (ApiError.Failure failure) {
            return paged(ApiJson.error(response, failure.error), 0, 0, 0).putNull("streams");
        }
        int from = Math.min(offset, streams.size());
        paged(response, streams.size(), from, limit);
        fill.accept(response, streams.subList(from, Math.min(streams.size(), from + limit)));
        return response;
    }

    private static int offset(JsonNode filter) {
        JsonNode offset = filter == null ? null : filter.get("offset");
        if (offset == null || offset.isNull()) {
            return 0;
        }
        if (!offset.isIntegralNumber()) {
            throw ApiError.INVALID_JSON.failure();
        }
        return Math.max(0, offset.asInt());
    }

    /** @return the visible streams, sorted by name, whose subjects overlap the request's {@code subject} filter */
    private List<StoredStream> filtered(Requester requester, JsonNode filter) {
        JsonNode subject = filter == null ? null : filter.get("subject");
        if (subject != null && !subject.isNull() && !subject.isTextual()) {
            throw ApiError.INVALID_JSON.failure();
        }
        String wanted = subject == null || subject.isNull() || subject.asText().isEmpty() ? null : subject.asText();
        List<StoredStream> streams = new ArrayList<>();
        for (StoredStream stream : visible(requester)) {
            try {
                if (wanted == null || stream.config().overlaps(wanted)) {
                    streams.add(stream);
                }
            } catch (IllegalArgumentException invalidFilter) {
                // nats-server matches nothing for a subject that is not valid
            }
        }
        streams.sort(Comparator.comparing(stream -> stream.config().name()));
        return streams;
    }

    private ObjectNode messageGet(ApiRequest request, String name) {
        ObjectNode response = ApiJson.response("stream_msg_get_response");
        try {
            if (request.payload().length == 0) {
                throw ApiError.BAD_REQUEST.failure();
            }
            JsonNode json = json(request.payload());
            long seq = json.hasNonNull("seq") ? requireLong(json.get("seq")) : 0;
            String last = text(json.get("last_by_subj"));
            String next = text(json.get("next_by_subj"));
            if (seq > 0 && last != null || seq == 0 && last == null && next == null || last != null && next != null) {
                throw ApiError.BAD_REQUEST.failure();
            }
            StoredStream stream = catalog.stream(name).filter(s -> mayManage(request.requester(), name))
                    .orElseThrow(ApiError.STREAM_NOT_FOUND::failure);
            StoredMessage message;
            try {
                message = next != null ? stream.nextBySubject(next, seq) : last != null ? stream.lastBySubject(last)
                        : stream.read(seq);
            } catch (IllegalArgumentException invalidSubject) {
                message = null;
            }
            if (message == null) {
                throw ApiError.NO_MESSAGE.failure();
            }
            ObjectNode body = response.putObject("message");
            body.put("subject", message.subject());
            body.put("seq", message.sequence());
            byte[] headers = message.headers().isEmpty() ? null : message.headers().toNatsBlock();
            if (headers != null && headers.length > 0) {
                body.put("hdrs", Base64.getEncoder().encodeToString(headers));
            }
            if (message.payload().length > 0) {
                body.put("data", Base64.getEncoder().encodeToString(message.payload()));
            }
            body.put("time", Instant.ofEpochMilli(message.timestampMillis()).toString());
            return response;
        } catch (ApiError.Failure failure) {
            return ApiJson.error(response, failure.error);
        }
    }

    private List<StoredStream> visible(Requester requester) {
        List<StoredStream> visible = new ArrayList<>();
        for (StoredStream stream : catalog.streams()) {
            if (mayManage(requester, stream.config().name())) {
                visible.add(stream);
            }
        }
        return visible;
    }

    private boolean mayManage(Requester requester, String stream) {
        return broker.streamScope(stream).map(requester.scope()::includes).orElse(false);
    }

    private static ObjectNode paged(ObjectNode response, int total, int offset, int limit) {
        response.put("total", total);
        response.put("offset", offset);
        response.put("limit", limit);
        return response;
    }

    static JsonNode json(byte[] payload) {
        try {
            JsonNode json = ApiJson.MAPPER.readTree(payload);
            if (json == null || !json.isObject()) {
                throw ApiError.INVALID_JSON.failure();
            }
            return json;
        } catch (IOException e) {
            throw ApiError.INVALID_JSON.failure();
        }
    }

    static long requireLong(JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw ApiError.INVALID_JSON.failure();
        }
        return value.asLong();
    }

    static String text(JsonNode value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw ApiError.INVALID_JSON.failure();
        }
        return value.asText().isEmpty() ? null : value.asText();
    }
}
