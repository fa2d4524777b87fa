package io.ringbus.jetstream.internal;

import io.ringbus.core.StoredStream;

import java.util.List;

/**
 * {@code jetstream.max_key_dedup_bytes}: the bound on the {@code ringbus_key_dedup_bytes} of all
 * streams together. The per-key outbox ids live in the server's memory and outlive the messages that
 * stored them, so the memory a client may ask for is the server's to bound, not the stream's
 * {@code max_bytes}.
 */
final class KeyDedupLimit {
    private KeyDedupLimit() {
    }

    /**
     * @param requested the stream's requested {@code ringbus_key_dedup_bytes} (0: off, always allowed)
     * @param self      the stream's name (its current bound does not count: it is replaced)
     * @param streams   every stream, {@code --durable} ones included
     * @param max       {@code jetstream.max_key_dedup_bytes}
     * @throws ApiError.Failure 10052 naming the request, the total and the limit when all streams would take more
     */
    static void require(long requested, String self, List<StoredStream> streams, long max) {
        if (requested <= 0) {
            return;
        }
        long total = requested;
        for (StoredStream stream : streams) {
            if (!stream.config().name().equals(self)) {
                total = saturatedAdd(total, stream.config().keyDedupBytes());
            }
        }
        if (total > max) {
            throw ApiError.invalidConfig(JsStreamConfig.KEY_DEDUP_FIELD + "=" + requested + " requested, " + total
                    + " in all streams, at most " + max + " (jetstream.max_key_dedup_bytes)").failure();
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
