package io.ringbus.jetstream.internal.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Documents;
import io.ringbus.core.StorageException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.TreeSet;

/**
 * Where durable consumers are kept: one {@link Documents document} of the store's {@code jetstream}
 * area per consumer, named {@code <stream>.<consumer in base64url>} (a consumer name may hold
 * characters a file name may not), holding its configuration and state as JSON, replaced whole
 * through the store's durability discipline: a crash leaves the old state or the new.
 *
 * <p>Threading: the {@link Consumers}' one thread.
 */
final class ConsumerFiles {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final Documents documents;

    ConsumerFiles(Documents documents) {
        this.documents = documents;
    }

    private static String document(String stream, String consumer) {
        return stream + "." + ENCODER.encodeToString(consumer.getBytes(StandardCharsets.UTF_8));
    }

    void save(String stream, String consumer, ObjectNode state) {
        try {
            documents.write(document(stream, consumer), JsConsumerConfig.MAPPER.writeValueAsBytes(state));
        } catch (IOException e) {
            throw new StorageException("cannot encode consumer " + stream + " > " + consumer + ": " + e, e);
        }
    }

    void delete(String stream, String consumer) {
        documents.delete(document(stream, consumer));
    }

    /** Deletes every consumer of a stream (the stream was deleted). */
    void deleteStream(String stream) {
        for (String name : documents.names()) {
            if (name.startsWith(stream + ".")) {
                documents.delete(name);
            }
        }
    }

    /** A consumer's saved state. */
    record Stored(String name, JsonNode state) {
    }

    /** @return the streams that have saved consumers */
    List<String> streams() {
        TreeSet<String> streams = new TreeSet<>();
        for (String name : documents.names()) {
            streams.add(name.substring(0, Math.max(0, name.indexOf('.'))));
        }
        return List.copyOf(streams);
    }

    /** @return the saved consumers of {@code stream} */
    List<Stored> load(String stream) {
        List<Stored> stored = new ArrayList<>();
        for (String name : documents.names()) {
            if (!name.startsWith(stream + ".")) {
                continue;
            }
            String consumer = new String(DECODER.decode(name.substring(stream.length() + 1)), StandardCharsets.UTF_8);
            byte[] content = documents.read(name);
            if (content == null) {
                continue;
            }
            try {
                stored.add(new Stored(consumer, JsConsumerConfig.MAPPER.readTree(content)));
            } catch (IOException e) {
                throw new StorageException("cannot read consumer " + stream + " > " + consumer + ": " + e, e);
            }
        }
        return stored;
    }
}
