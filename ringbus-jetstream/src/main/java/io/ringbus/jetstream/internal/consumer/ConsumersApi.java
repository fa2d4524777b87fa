package io.ringbus.jetstream.internal.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Scope;
import io.ringbus.core.StoredStream;
import io.ringbus.core.Subject;
import io.ringbus.jetstream.internal.ApiError;
import io.ringbus.server.spi.ApiRequest;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * JetStream's consumer requests ({@code $JS.API.CONSUMER.>}), answered as nats-server 2.9.10 answers
 * them ({@code jsConsumer*Request} in {@code server/jetstream_api.go}, {@code checkConsumerCfg} in
 * {@code consumer.go}). Called on the API's thread; the work runs on the {@link Consumers}' thread.
 * A requester sees only consumers of streams within its scope ("stream not found" otherwise).
 */
public final class ConsumersApi {
    /** nats-server's page size for NAMES. */
    static final int NAMES_LIMIT = 1024;
    /** nats-server's page size for LIST. */
    static final int LIST_LIMIT = 256;
    private static final String TYPE = "io.nats.jetstream.api.v1.";

    private final Consumers consumers;
    /** The consumer the request being answered created (API thread), held until its answer is out. */
    private JsConsumer created;

    /** @param consumers the consumers */
    public ConsumersApi(Consumers consumers) {
        this.consumers = consumers;
    }

    /**
     * Answers {@code $JS.API.CONSUMER.*} (tokens of the subject).
     *
     * @return the response, or null when the request gets none (unknown kinds, MSG.NEXT)
     */
    public ObjectNode answer(ApiRequest request, String[] tokens) {
        if (tokens.length < 5) {
            return null;
        }
        String kind = tokens[3];
        return switch (kind) {
            case "CREATE" -> tokens.length >= 5 ? create(request, tokens) : null;
            case "DURABLE" -> tokens.length >= 6 && tokens[4].equals("CREATE") ? create(request, tokens) : null;
            case "INFO" -> tokens.length == 6 ? info(request, tokens[4], tokens[5]) : null;
            case "DELETE" -> tokens.length == 6 ? delete(request, tokens[4], tokens[5]) : null;
            case "NAMES" -> tokens.length == 5 ? names(request, tokens[4], false) : null;
            case "LIST" -> tokens.length == 5 ? names(request, tokens[4], true) : null;
            case "MSG" -> {
                if (tokens.length == 7 && tokens[4].equals("NEXT")) {
                    next(request, tokens[5], tokens[6]);
                }
                yield null;
            }
            default -> null;
        };
    }

    /**
     * The answer to the last request was published (API thread): a consumer it created publishes
     * what it delivered since (read while it was created, {@link Consumers#start}) and delivers on.
     * Before, a push consumer's first message could reach the client ahead of the create response,
     * which nats.js's ordered consumer (a KV watch) then dropped.
     */
    public void answered() {
        JsConsumer consumer = created;
        if (consumer != null) {
            created = null;
            consumers.release(consumer);
        }
    }

    /** @return whether the answer is counted in INFO's api totals (MSG.NEXT is not, as in nats-server) */
    public static boolean counted(String[] tokens) {
        return !(tokens.length >= 5 && tokens[3].equals("MSG"));
    }

    private static ObjectNode response(String type) {
        ObjectNode json = JsConsumerConfig.MAPPER.createObjectNode();
        json.put("type", TYPE + type);
        return json;
    }

    private static ObjectNode error(ObjectNode response, ApiError error) {
        ObjectNode body = response.putObject("error");
        body.put("code", error.code());
        body.put("err_code", error.errCode());
        body.put("description", error.description());
        return response;
    }

    private Optional<StoredStream> visible(ApiRequest request, String stream) {
        Scope scope = request.requester().scope();
        return consumers.stream(stream).filter(s -> consumers.broker.streamScope(stream).map(scope::includes)
                .orElse(false));
    }

    private ObjectNode create(ApiRequest request, String[] tokens) {
        ObjectNode response = response("consumer_create_response");
        try {
            JsonNode json = json(request.payload());
            boolean legacyDurable = tokens[3].equals("DURABLE");
            String stream = legacyDurable ? tokens[5] : tokens[4];
            String subjectName = null;
            String subjectFilter = null;
            if (legacyDurable) {
                if (tokens.length != 7) {
                    throw ConsumerError.of(ConsumerError.DURABLE_NOT_IN_SUBJECT);
                }
                subjectName = tokens[6];
            } else if (tokens.length > 5) {
                subjectName = tokens[5];
                if (tokens.length > 6) {
                    subjectFilter = String.join(".", java.util.Arrays.copyOfRange(tokens, 6, tokens.length));
                }
            }
            JsonNode requestStream = json.get("stream_name");
            if (requestStream != null && !requestStream.isTextual() && !requestStream.isNull()) {
                throw ConsumerError.of(ApiError.INVALID_JSON);
            }
            JsConsumerConfig config = JsConsumerConfig.parse(json.has("config") && !json.get("config").isNull()
                    ? json.get("config") : JsConsumerConfig.MAPPER.createObjectNode());
            if (!stream.equals(requestStream == null ? "" : requestStream.asText())) {
                throw ConsumerError.of(ApiError.STREAM_MISMATCH);
            }
            if (subjectName != null && (subjectName.contains("/") || subjectName.contains("\\"))) {
                throw ConsumerError.of(ConsumerError.NAME_WITH_PATH_SEPARATORS);
            }
            String name = config.name();
            if (legacyDurable) {
                if (config.durable() == null) {
                    throw ConsumerError.of(ConsumerError.DURABLE_NOT_SET);
                }
                if (!subjectName.equals(config.durable())) {
                    throw ConsumerError.of(ConsumerError.DURABLE_MISMATCH);
                }
            } else if (subjectName != null) {
                if (config.durable() != null && !subjectName.equals(config.durable())) {
                    throw ConsumerError.of(ConsumerError.DURABLE_MISMATCH);
                }
                name = subjectName;
            } else if (config.durable() != null) {
                throw ConsumerError.of(ConsumerError.EPHEMERAL_WITH_DURABLE);
            }
            if (subjectFilter != null && !subjectFilter.equals(config.filterSubject())) {
                throw ConsumerError.of(ConsumerError.FILTER_MISMATCH);
            }
            if (config.replicas() > 1) {
                throw ConsumerError.of(new ApiError(500, 10074, "replicas > 1 not supported in non-clustered mode"));
            }
            StoredStream stored = visible(request, stream).orElseThrow(() -> ConsumerError.of(
                    ApiError.STREAM_NOT_FOUND));
            String consumerName = config.durable() != null ? config.durable() : name;
            JsConsumerConfig checked = ConsumerChecks.check(config.withDefaults(name), stored);
            return consumers.call(() -> {
                JsConsumer consumer = createOn(stream, stored, checked, consumerName);
                ObjectNode info = ConsumerJson.info(consumer, response, stored); // as created, as nats-server's
                if (consumer.output.holding()) {
                    created = consumer; // read on the API thread once call returns
                    consumers.start(consumer, stored);
                }
                return info;
            });
        } catch (ConsumerError failure) {
            return error(response, failure.error);
        }
    }

    /** On the consumers' thread: an existing consumer with the same configuration is answered as is. */
    private JsConsumer createOn(String stream, StoredStream stored, JsConsumerConfig config, String requested) {
        if (requested != null) {
            JsConsumer existing = consumers.find(stream, requested);
            if (existing != null) {
                if (!existing.config.toJson().equals(config.toJson())) {
                    String refusal = existing.updateRefusal(config);
                    if (refusal != null) {
                        throw refusal.equals(ConsumerError.NAME_EXISTS.description())
                                ? ConsumerError.of(ConsumerError.NAME_EXISTS) : ConsumerError.create(refusal);
                    }
                    existing.update(config);
                    consumers.save(existing);
                }
                return existing;
            }
        }
        int limit = stored.config() != null ? maxConsumers(stream) : 0;
        if (limit > 0 && consumers.of(stream).size() >= limit || consumers.count() >= Consumers.MAX_CONSUMERS) {
            throw ConsumerError.of(ConsumerError.MAX_CONSUMERS);
        }
        if (Consumers.workQueue(stored)) {
            if (!config.ackPolicy().equals("explicit")) {
                throw ConsumerError.of(ConsumerError.WQ_REQUIRES_EXPLICIT_ACK);
            }
            if (!consumers.of(stream).isEmpty()) {
                if (config.filterSubject() == null) {
                    throw ConsumerError.of(ConsumerError.WQ_MULTIPLE_UNFILTERED);
                }
                if (!consumers.workQueueAllows(stream, config.filterSubject())) {
                    throw ConsumerError.of(ConsumerError.WQ_NOT_UNIQUE);
                }
            }
            if (!config.deliverPolicy().equals("all")) {
                throw ConsumerError.of(ConsumerError.WQ_NOT_DELIVER_ALL);
            }
        }
        String name = requested;
        if (name == null) {
            do {
                name = randomName();
            } while (consumers.find(stream, name) != null);
        }
        if (name.length() > JsConsumerConfig.MAX_NAME) {
            throw ConsumerError.nameTooLong(JsConsumerConfig.MAX_NAME);
        }
        if (name.contains(".") || name.contains("*") || name.contains(">") || name.contains(" ")) {
            throw ConsumerError.of(ConsumerError.BAD_DURABLE_NAME);
        }
        JsConsumer consumer = new JsConsumer(stream, requested == null ? config.withDefaults(name) : config,
                Instant.now(),
                consumers.broker);
        consumer.position(stored);
        consumer.output.hold(); // until its create response is published (answered)
        consumers.add(consumer);
        return consumer;
    }

    private int maxConsumers(String stream) {
        return maxConsumersOf.applyAsInt(stream);
    }

    /** The stream's {@code max_consumers} (0 or -1: no limit of its own), from the stream catalog. */
    private java.util.function.ToIntFunction<String> maxConsumersOf = stream -> 0;

    /** @param lookup the stream's configured {@code max_consumers} */
    public void maxConsumersFrom(java.util.function.ToIntFunction<String> lookup) {
        this.maxConsumersOf = lookup;
    }

    /** nats-server's createConsumerName: 8 random letters and digits. */
    private static String randomName() {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            name.append(alphabet.charAt(ThreadLocalRandom.current().nextInt(alphabet.length())));
        }
        return name.toString();
    }

    private ObjectNode info(ApiRequest request, String stream, String name) {
        ObjectNode response = response("consumer_info_response");
        Optional<StoredStream> stored = visible(request, stream);
        if (stored.isEmpty()) {
            return error(response, ApiError.STREAM_NOT_FOUND);
        }
        try {
            return consumers.call(() -> {
                JsConsumer consumer = consumers.find(stream, name);
                if (consumer == null) {
                    return error(response, ConsumerError.NOT_FOUND);
                }
                return ConsumerJson.info(consumer, response, stored.get());
            });
        } catch (ConsumerError failure) {
            return error(response, failure.error);
        }
    }

    private ObjectNode delete(ApiRequest request, String stream, String name) {
        ObjectNode response = response("consumer_delete_response");
        if (visible(request, stream).isEmpty()) {
            return error(response, ApiError.STREAM_NOT_FOUND);
        }
        try {
            boolean deleted = consumers.call(() -> consumers.delete(stream, name));
            return deleted ? response.put("success", true) : error(response, ConsumerError.NOT_FOUND);
        } catch (ConsumerError failure) {
            return error(response, failure.error);
        }
    }

    private ObjectNode names(ApiRequest request, String stream, boolean list) {
        ObjectNode response = response(list ? "consumer_list_response" : "consumer_names_response");
        int offset = 0;
        try {
            if (request.payload().length > 0) {
                JsonNode json = json(request.payload());
                JsonNode value = json.get("offset");
                if (value != null && !value.isNull()) {
                    if (!value.isIntegralNumber()) {
                        throw ConsumerError.of(ApiError.INVALID_JSON);
                    }
                    offset = Math.max(0, value.asInt());
                }
            }
        } catch (ConsumerError failure) {
            paged(error(response, failure.error), 0, 0, 0).putArray("consumers");
            return response;
        }
        Optional<StoredStream> stored = visible(request, stream);
        if (stored.isEmpty()) {
            paged(error(response, ApiError.STREAM_NOT_FOUND), 0, 0, 0).putArray("consumers");
            return response;
        }
        int from = offset;
        int limit = list ? LIST_LIMIT : NAMES_LIMIT;
        return consumers.call(() -> {
            List<JsConsumer> all = new ArrayList<>(consumers.of(stream).values());
            int start = Math.min(from, all.size());
            paged(response, all.size(), start, limit);
            ArrayNode page = response.putArray("consumers");
            for (JsConsumer consumer : all.subList(start, Math.min(all.size(), start + limit))) {
                if (list) {
                    page.add(ConsumerJson.info(consumer, JsConsumerConfig.MAPPER.createObjectNode(), stored.get()));
                } else {
                    page.add(consumer.name());
                }
            }
            return response;
        });
    }

    private void next(ApiRequest request, String stream, String name) {
        Optional<StoredStream> stored = visible(request, stream);
        if (stored.isEmpty() || request.replyTo() == null) {
            return; // nats-server has no subscription there: no answer
        }
        byte[] body = request.payload();
        String reply = request.replyTo();
        consumers.later(() -> {
            JsConsumer consumer = consumers.find(stream, name);
            if (consumer != null) {
                PullRequests.next(consumers, consumer, stored.get(), reply, body);
            }
        });
    }

    /** @return the consumers of the streams {@code scope} sees, for INFO's count */
    public int countVisible(Scope scope) {
        return consumers.call(() -> {
            int count = 0;
            for (var entry : consumers.byStream.entrySet()) {
                if (consumers.broker.streamScope(entry.getKey()).map(scope::includes).orElse(false)) {
                    count += entry.getValue().size();
                }
            }
            return count;
        });
    }

    /** The stream was deleted: its consumers go. */
    public void streamGone(String stream) {
        consumers.streamGone(stream);
    }

    /**
     * Sets {@code state.consumer_count} of the stream infos in a stream API response (INFO, CREATE,
     * UPDATE, LIST), which the stream API writes without knowing the consumers.
     */
    public void countConsumers(ObjectNode response) {
        List<ObjectNode> infos = new ArrayList<>();
        if (response.has("state") && response.has("config")) {
            infos.add(response);
        }
        if (response.get("streams") instanceof ArrayNode streams) {
            streams.forEach(info -> {
                if (info instanceof ObjectNode object && object.has("state")) {
                    infos.add(object);
                }
            });
        }
        if (infos.isEmpty()) {
            return;
        }
        consumers.call(() -> {
            for (ObjectNode info : infos) {
                String stream = info.path("config").path("name").asText();
                if (info.get("state") instanceof ObjectNode state) {
                    state.put("consumer_count", consumers.of(stream).size());
                }
            }
            return null;
        });
    }

    private static ObjectNode paged(ObjectNode response, int total, int offset, int limit) {
        response.put("total", total);
        response.put("offset", offset);
        response.put("limit", limit);
        return response;
    }

    private static JsonNode json(byte[] payload) {
        try {
            JsonNode json = JsConsumerConfig.MAPPER.readTree(payload);
            if (json == null || !json.isObject()) {
                throw ConsumerError.of(ApiError.INVALID_JSON);
            }
            return json;
        } catch (IOException e) {
            throw ConsumerError.of(ApiError.INVALID_JSON);
        }
    }

    static boolean isFilterSubset(String filter, String streamSubjects) {
        return Subject.overlap(filter, streamSubjects);
    }
}
