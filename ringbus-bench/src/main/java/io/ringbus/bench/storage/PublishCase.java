package io.ringbus.bench.storage;

import java.util.Locale;

/**
 * One durable publish case, run on both systems.
 *
 * @param async        a window of outstanding publishes per publisher, else one at a time
 * @param payloadBytes per message
 * @param publishers   concurrent publishers
 */
record PublishCase(boolean async, int payloadBytes, int publishers) {
    /** @return {@code async} or {@code sync} */
    String mode() {
        return async ? "async" : "sync";
    }

    /** @return e.g. {@code async 128 B x4} */
    String label() {
        return label(mode(), payloadBytes, publishers);
    }

    /**
     * @param mode         {@code async} or {@code sync}
     * @param payloadBytes per message
     * @param publishers   concurrent publishers
     * @return e.g. {@code async 1 KiB x4}
     */
    static String label(String mode, int payloadBytes, int publishers) {
        String size = payloadBytes >= 1_024 && payloadBytes % 1_024 == 0 ? payloadBytes / 1_024 + " KiB"
                : payloadBytes + " B";
        return String.format(Locale.ROOT, "%s %s x%d", mode, size, publishers);
    }
}
