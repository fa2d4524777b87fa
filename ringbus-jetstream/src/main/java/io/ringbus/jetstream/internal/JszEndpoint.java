package io.ringbus.jetstream.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Scope;
import io.ringbus.core.StoredStream;
import io.ringbus.server.spi.MonitorEndpoint;
import io.ringbus.server.spi.MonitorJson;
import io.ringbus.server.spi.MonitorQuery;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

/**
 * {@code /jsz} as nats-server 2.9.10 serves it ({@code server/monitor.go} {@code Jsz}): the
 * server's JetStream figures, and with {@code accounts=true} (implied by {@code streams}, itself
 * implied by {@code consumers}) the one account's, {@code $G}, with {@code streams=true} each
 * stream's name, creation, state and (with {@code config=true}) configuration, with
 * {@code consumers=true} each consumer's info. {@code acc=$G} asks for the account alone;
 * {@code offset} and {@code limit} page the accounts (default limit 1024); {@code leader-only} is
 * always met (a standalone server leads). A bad boolean or integer is {@code 400}.
 *
 * <p>Streams are listed by name, only those the viewer's scope includes; the totals count every
 * stream. The consumers' infos are taken on the consumers' thread ({@link
 * io.ringbus.jetstream.internal.consumer.Consumers#infos}), without the monitor's thread waiting;
 * the rest is read on the monitor's thread when the answer is written.
 */
final class JszEndpoint implements MonitorEndpoint {
    /** nats-server's default {@code limit} of accounts. */
    static final int DEFAULT_LIMIT = 1024;

    private final JetStreamFigures figures;

    /** The options of one request, after nats-server's implications. */
    private record Options(boolean account, boolean streams, boolean consumers, boolean config) {
    }

    JszEndpoint(JetStreamFigures figures) {
        this.figures = figures;
    }

    @Override
    public CompletionStage<MonitorJson> answer(MonitorQuery query) {
        boolean accounts = query.flag("accounts");
        boolean streams = query.flag("streams");
        boolean consumers = query.flag("consumers");
        boolean config = query.flag("config");
        query.flag("leader-only"); // checked as nats-server checks it; a standalone server is the leader
        int offset = query.integer("offset", 0);
        query.integer("limit", 0); // limit >= 1 always leaves the one account (0 is the default, 1024)
        String acc = query.string("acc");
        streams |= consumers;
        accounts |= streams;
        Options options = new Options(JetStreamFigures.ACCOUNT.equals(acc) || accounts && offset == 0, streams,
                consumers, config);
        Scope viewer = query.viewer();
        if (!options.account() || !options.consumers() || figures.consumers == null) {
            return CompletableFuture.completedFuture(json -> write(json, options, viewer, Map.of()));
        }
        Set<String> visible = figures.visible(viewer).stream().map(stream -> stream.config().name())
                .collect(Collectors.toSet());
        return figures.consumers.infos(visible::contains, config)
                .thenApply(infos -> json -> write(json, options, viewer, infos));
    }

    private void write(JsonGenerator json, Options options, Scope viewer, Map<String, List<ObjectNode>> consumers)
            throws IOException {
        JetStreamFigures.Totals totals = figures.totals();
        json.writeStartObject();
        json.writeStringField("server_id", figures.serverId);
        json.writeStringField("now", Instant.now().toString());
        json.writeFieldName("config");
        figures.config(json, viewer);
        figures.stats(json, totals.bytes(), false);
        json.writeNumberField("streams", totals.streams());
        json.writeNumberField("consumers", figures.consumerCount());
        json.writeNumberField("messages", totals.messages());
        json.writeNumberField("bytes", totals.bytes());
        if (options.account()) {
            json.writeArrayFieldStart("account_details");
            json.writeStartObject();
            json.writeStringField("name", JetStreamFigures.ACCOUNT);
            json.writeStringField("id", JetStreamFigures.ACCOUNT);
            figures.stats(json, totals.bytes(), true);
            if (options.streams()) {
                streams(json, options, viewer, consumers);
            }
            json.writeEndObject();
            json.writeEndArray();
        }
        json.writeEndObject();
    }

    /** {@code stream_detail}, left out when empty (Go's omitempty). */
    private void streams(JsonGenerator json, Options options, Scope viewer, Map<String, List<ObjectNode>> consumers)
            throws IOException {
        List<StoredStream> streams = figures.visible(viewer);
        boolean started = false;
        for (StoredStream stream : streams) {
            String name = stream.config().name();
            StreamCatalog.Entry entry;
            ObjectNode state;
            try {
                entry = figures.catalog.entry(stream);
                state = ApiJson.state(stream);
            } catch (RuntimeException closing) {
                continue; // deleted while being read: as if it were gone
            }
            state.put("consumer_count", figures.consumerCount(name));
            if (!started) {
                json.writeArrayFieldStart("stream_detail");
                started = true;
            }
            json.writeStartObject();
            json.writeStringField("name", name);
            json.writeStringField("created", entry.created().toString());
            json.writeObjectFieldStart("cluster");
            json.writeStringField("leader", figures.serverName);
            json.writeEndObject();
            if (options.config()) {
                json.writeFieldName("config");
                ApiJson.MAPPER.writeTree(json, entry.config().toJson());
            }
            json.writeFieldName("state");
            ApiJson.MAPPER.writeTree(json, state);
            List<ObjectNode> infos = options.consumers() ? consumers.getOrDefault(name, List.of()) : List.of();
            if (!infos.isEmpty()) {
                json.writeArrayFieldStart("consumer_detail");
                for (ObjectNode info : infos) {
                    ApiJson.MAPPER.writeTree(json, info);
                }
                json.writeEndArray();
            }
            json.writeEndObject();
        }
        if (started) {
            json.writeEndArray();
        }
    }
}
