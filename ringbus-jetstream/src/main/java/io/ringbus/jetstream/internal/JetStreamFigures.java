package io.ringbus.jetstream.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamInfo;
import io.ringbus.jetstream.internal.consumer.Consumers;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What JetStream's monitoring reads ({@code /jsz}, {@code /varz}'s {@code jetstream}, the meters,
 * the dashboard): the streams, the consumers' counts and the API's counters, and nats-server's
 * {@code JetStreamConfig} and {@code JetStreamStats} objects written from them. Any thread: it reads
 * the stores' figures and counters, never the consumers' own state.
 *
 * <p>The totals (streams, consumers, messages, bytes) count every stream, as {@code /varz} counts
 * every connection; names, subjects and configurations are shown only to a viewer whose scope
 * includes the stream's ({@link #visible}).
 */
final class JetStreamFigures {
    /** The one account, nats-server's global account. */
    static final String ACCOUNT = "$G";
    /** Go's {@code uint64(-1)}: what nats-server shows as an account's reservation when its limit is -1 (none). */
    private static final BigInteger NO_RESERVATION = BigInteger.TWO.pow(64).subtract(BigInteger.ONE);

    final Broker broker;
    final StreamsApi api;
    final StreamCatalog catalog;
    /** {@code null} when the store keeps no documents (no consumers are served). */
    final Consumers consumers;
    final ApiDispatcher dispatcher;
    final Storage storage;
    final String serverId;
    final String serverName;

    /** Sums over every stream. */
    record Totals(int streams, long messages, long bytes) {
    }

    JetStreamFigures(Broker broker, StreamsApi api, Consumers consumers, ApiDispatcher dispatcher, Storage storage,
                     String serverId, String serverName) {
        this.broker = broker;
        this.api = api;
        this.catalog = api.catalog();
        this.consumers = consumers;
        this.dispatcher = dispatcher;
        this.storage = storage;
        this.serverId = serverId;
        this.serverName = serverName;
    }

    /** @return the streams' counts now (a stream closing meanwhile is left out) */
    Totals totals() {
        int streams = 0;
        long messages = 0;
        long bytes = 0;
        for (StoredStream stream : catalog.streams()) {
            try {
                StreamInfo info = stream.info();
                messages += info.messages();
                bytes += info.bytes();
                streams++;
            } catch (RuntimeException closing) {
                // deleted while being read: not counted
            }
        }
        return new Totals(streams, messages, bytes);
    }

    /** @return the consumers now, every stream's */
    int consumerCount() {
        return consumers == null ? 0 : consumers.count();
    }

    /** @return the consumers of a stream now */
    int consumerCount(String stream) {
        return consumers == null ? 0 : consumers.count(stream);
    }

    /** @return the streams {@code viewer} may see, by name */
    List<StoredStream> visible(Scope viewer) {
        List<StoredStream> visible = new ArrayList<>();
        for (StoredStream stream : catalog.streams()) {
            if (broker.streamScope(stream.config().name()).map(viewer::includes).orElse(false)) {
                visible.add(stream);
            }
        }
        visible.sort(Comparator.comparing(stream -> stream.config().name()));
        return visible;
    }

    /**
     * nats-server's {@code JetStreamConfig}: the memory streams' limit ({@code max_memory}), the store's
     * limit ({@code max_storage}: {@link io.ringbus.core.Storage#maxBytes}, -1 when it has none), the
     * store's directory to ROOT only.
     */
    void config(JsonGenerator json, Scope viewer) throws IOException {
        json.writeStartObject();
        json.writeNumberField("max_memory", Math.max(0, storage.maxMemoryBytes()));
        json.writeNumberField("max_storage", storage.maxBytes());
        Path dir = viewer == Scope.ROOT ? storage.directory().orElse(null) : null;
        if (dir != null) {
            json.writeStringField("store_dir", dir.toString());
        }
        json.writeEndObject();
    }

    /**
     * nats-server's {@code JetStreamStats} fields, into the current object: the server's
     * ({@code accounts} 1, nothing reserved) or the account's ({@code accounts} 0, its reservations
     * Go's {@code uint64(-1)} as nats-server shows an account without limits).
     */
    void stats(JsonGenerator json, long bytes, boolean account) throws IOException {
        long memory = Math.max(0, storage.usedMemoryBytes());
        json.writeNumberField("memory", memory);
        json.writeNumberField("storage", Math.max(0, bytes - memory));
        if (account) {
            json.writeFieldName("reserved_memory");
            json.writeNumber(NO_RESERVATION);
            json.writeFieldName("reserved_storage");
            json.writeNumber(NO_RESERVATION);
        } else {
            json.writeNumberField("reserved_memory", 0);
            json.writeNumberField("reserved_storage", 0);
        }
        json.writeNumberField("accounts", account ? 0 : 1);
        json.writeNumberField("ha_assets", 0);
        json.writeObjectFieldStart("api");
        json.writeNumberField("total", api.apiTotal());
        json.writeNumberField("errors", api.apiErrors());
        json.writeEndObject();
    }

    /** {@code /varz}'s {@code jetstream}: nats-server's {@code JetStreamVarz} ({@code config}, {@code stats}). */
    void varz(JsonGenerator json, Scope viewer) throws IOException {
        json.writeStartObject();
        json.writeFieldName("config");
        config(json, viewer);
        json.writeObjectFieldStart("stats");
        stats(json, totals().bytes(), false);
        json.writeEndObject();
        json.writeEndObject();
    }
}
