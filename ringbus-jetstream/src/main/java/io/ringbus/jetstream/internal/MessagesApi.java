package io.ringbus.jetstream.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.wire.HeaderNames;
import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.server.spi.ApiRequest;

import java.io.IOException;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Requests that change or read a stream's messages: {@code STREAM.PURGE}, {@code STREAM.MSG.DELETE}
 * and {@code DIRECT.GET} (by sequence, last by subject, and {@code DIRECT.GET.<stream>.<subject>}),
 * answered as nats-server 2.9.10 ({@code jsStreamPurgeRequest}, {@code jsMsgDeleteRequest},
 * {@code processDirectGetRequest}). A removal is durable in the store before the answer is sent.
 * Runs on the {@link ApiDispatcher}'s thread.
 */
final class MessagesApi {
    private final StreamCatalog catalog;
    /** The stream named, when the requester may manage it. */
    private final BiFunction<ApiRequest, String, Optional<StoredStream>> visible;

    MessagesApi(StreamCatalog catalog, BiFunction<ApiRequest, String, Optional<StoredStream>> visible) {
        this.catalog = catalog;
        this.visible = visible;
    }

    /** {@code $JS.API.STREAM.PURGE.<name>}: optional {@code filter}, {@code seq}, {@code keep}. */
    ObjectNode purge(ApiRequest request, String name) {
        ObjectNode response = ApiJson.response("stream_purge_response");
        try {
            String filter = null;
            long seq = 0;
            long keep = 0;
            if (request.payload().length > 0) {
                JsonNode json = StreamsApi.json(request.payload());
                filter = StreamsApi.text(json.get("filter"));
                seq = json.hasNonNull("seq") ? StreamsApi.requireLong(json.get("seq")) : 0;
                keep = json.hasNonNull("keep") ? StreamsApi.requireLong(json.get("keep")) : 0;
                if (seq > 0 && keep > 0) {
                    throw ApiError.BAD_REQUEST.failure();
                }
            }
            StoredStream stream = visible.apply(request, name).orElseThrow(ApiError.STREAM_NOT_FOUND::failure);
            JsStreamConfig config = catalog.entry(stream).config();
            if (config.sealed()) {
                throw ApiError.SEALED.failure();
            }
            if (config.denyPurge()) {
                throw ApiError.purgeFailed("stream purge not permitted").failure();
            }
            long purged;
            try {
                purged = stream.purge(filter, Math.max(0, seq), Math.max(0, keep));
            } catch (IllegalArgumentException invalidFilter) {
                purged = 0; // nats-server matches nothing with a filter that is not a subject
            } catch (StorageException | UnsupportedOperationException e) {
                throw ApiError.purgeFailed(e.getMessage()).failure();
            }
            return response.put("success", true).put("purged", purged);
        } catch (ApiError.Failure failure) {
            return ApiJson.error(response, failure.error).put("purged", 0); // Go: no omitempty
        }
    }

    /** {@code $JS.API.STREAM.MSG.DELETE.<name>}: {@code seq}, {@code no_erase}. */
    ObjectNode delete(ApiRequest request, String name) {
        ObjectNode response = ApiJson.response("stream_msg_delete_response");
        try {
            if (request.payload().length == 0) {
                throw ApiError.BAD_REQUEST.failure();
            }
            JsonNode json = StreamsApi.json(request.payload());
            long seq = json.hasNonNull("seq") ? StreamsApi.requireLong(json.get("seq")) : 0;
            StoredStream stream = visible.apply(request, name).orElseThrow(ApiError.STREAM_NOT_FOUND::failure);
            JsStreamConfig config = catalog.entry(stream).config();
            if (config.sealed()) {
                throw ApiError.SEALED.failure();
            }
            if (config.denyDelete()) {
                throw ApiError.messageDeleteFailed("message delete not permitted").failure();
            }
            long last = stream.info().lastSequence();
            // What the store answers, nats-server sends as a response, not an API error (not counted).
            if (seq <= 0) {
                return uncounted(ApiJson.error(response, ApiError.messageDeleteFailed("no message found")));
            }
            if (seq > last) {
                return uncounted(ApiJson.error(response, ApiError.messageDeleteFailed("stream store EOF")));
            }
            boolean removed;
            try {
                // no_erase or not: the record is gone for every reader at once and durably; its bytes
                // leave the disk with its segment (the log is never rewritten in place).
                removed = stream.delete(seq);
            } catch (StorageException | UnsupportedOperationException e) {
                return uncounted(ApiJson.error(response, ApiError.messageDeleteFailed(e.getMessage())));
            }
            if (!removed) {
                return uncounted(ApiJson.error(response, ApiError.sequenceNotFound(seq)));
            }
            return response.put("success", true);
        } catch (ApiError.Failure failure) {
            return ApiJson.error(response, failure.error);
        }
    }

    /**
     * {@code $JS.API.DIRECT.GET.<name>[.<subject>]}: the message itself with nats-server's headers,
     * or a status (404 not found, 408 bad request); no answer when the stream does not exist, is
     * out of the requester's scope, or does not allow direct gets (nats-server has no responder).
     *
     * @param subject the subject after the stream's name, or null for the JSON form
     */
    void directGet(ApiRequest request, String name, String subject) {
        Optional<StoredStream> found = visible.apply(request, name);
        if (found.isEmpty() || !catalog.entry(found.get()).config().allowDirect() || request.replyTo() == null) {
            return;
        }
        StoredStream stream = found.get();
        byte[] payload = request.payload();
        long seq = 0;
        String last;
        String next = null;
        if (subject != null) {
            if (payload.length != 0 || subject.isEmpty()) {
                status(request, "408 Bad Request");
                return;
            }
            last = subject;
        } else {
            if (payload.length == 0) {
                status(request, "408 Empty Request");
                return;
            }
            JsonNode json;
            try {
                json = ApiJson.MAPPER.readTree(payload);
                if (json == null || !json.isObject()) {
                    throw new IOException("not an object");
                }
                seq = json.hasNonNull("seq") ? StreamsApi.requireLong(json.get("seq")) : 0;
                last = StreamsApi.text(json.get("last_by_subj"));
                next = StreamsApi.text(json.get("next_by_subj"));
            } catch (IOException | ApiError.Failure e) {
                status(request, "408 Malformed Request");
                return;
            }
            if (seq <= 0 && last == null && next == null) {
                status(request, "408 Empty Request");
                return;
            }
            if (seq > 0 && last != null || last != null && next != null) {
                status(request, "408 Bad Request");
                return;
            }
        }
        StoredMessage message;
        try {
            message = next != null ? stream.nextBySubject(next, seq) : last != null ? stream.lastBySubject(last)
                    : stream.read(seq);
        } catch (IllegalArgumentException | StorageException e) {
            message = null;
        }
        if (message == null) {
            status(request, "404 Message Not Found");
            return;
        }
        request.reply(directHeaders(name, message), message.payload());
    }

    /** The message's own header block with Nats-Stream, -Subject, -Sequence and -Time-Stamp added. */
    static byte[] directHeaders(String stream, StoredMessage message) {
        byte[] own = message.headers().isEmpty() ? null : message.headers().toNatsBlock();
        return NatsHeaderBlock.append(own, HeaderNames.STREAM, stream, HeaderNames.SUBJECT, message.subject(),
                HeaderNames.SEQUENCE, String.valueOf(message.sequence()),
                HeaderNames.TIME_STAMP, goTime(Instant.ofEpochMilli(message.timestampMillis())));
    }

    /** @return {@code time} as Go's RFC3339Nano writes it (UTC, trailing zeros of the fraction dropped) */
    static String goTime(Instant time) {
        String iso = Instant.ofEpochSecond(time.getEpochSecond()).toString(); // ...:ssZ
        int nanos = time.getNano();
        if (nanos == 0) {
            return iso;
        }
        String fraction = String.format("%09d", nanos).replaceAll("0+$", "");
        return iso.substring(0, iso.length() - 1) + "." + fraction + "Z";
    }

    private static ObjectNode uncounted(ObjectNode response) {
        return response.put(ApiJson.UNCOUNTED_ERROR, true);
    }

    private static void status(ApiRequest request, String status) {
        request.reply(NatsHeaderBlock.statusBlock(status), new byte[0]);
    }
}
