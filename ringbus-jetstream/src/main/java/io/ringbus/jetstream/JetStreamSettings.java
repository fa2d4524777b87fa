package io.ringbus.jetstream;

import io.ringbus.server.spi.ConfigKey;
import io.ringbus.server.spi.ExtensionSettings;

import java.util.List;

/**
 * JetStream's settings: the {@code jetstream.*} keys of the server's configuration file.
 *
 * <pre>
 * jetstream.enabled                    = true | false   (--no-jetstream: false)
 * jetstream.max_streams                = N   the most streams, --durable ones included (default 256: the local log runs a flusher thread per stream)
 * jetstream.max_pending_requests       = N   API requests queued, all clients together (default 1,024)
 * jetstream.max_pending_per_connection = N   API requests queued for one connection (default 64)
 * jetstream.max_pending_bytes          = N   bytes of API requests queued, all clients together (default 4 MiB)
 * jetstream.max_subjects               = N   subjects of all streams together (default 1,024: every overlap
 *                                            check and a published subject's lookup cost in proportion)
 * jetstream.max_key_dedup_bytes        = N   the ringbus_key_dedup_bytes of all streams together (default 64 MiB:
 *                                            the per-key outbox ids live in memory and outlive the messages)
 * </pre>
 *
 * @param enabled                  whether the API is served
 * @param maxStreams               the most streams
 * @param maxPendingRequests       requests waiting for the API's thread, all connections together
 * @param maxPendingPerConnection  requests waiting for one connection
 * @param maxPendingBytes          bytes of requests waiting, all connections together
 * @param maxSubjects              subjects of all streams together
 * @param maxKeyDedupBytes         the {@code ringbus_key_dedup_bytes} of all streams together
 */
public record JetStreamSettings(boolean enabled, int maxStreams, int maxPendingRequests, int maxPendingPerConnection,
                                long maxPendingBytes, int maxSubjects, long maxKeyDedupBytes) {
    /** The default {@link #maxStreams()}. */
    public static final int DEFAULT_MAX_STREAMS = 256;
    /** The default {@link #maxPendingRequests()}. */
    public static final int DEFAULT_MAX_PENDING_REQUESTS = 1_024;
    /** The default {@link #maxPendingPerConnection()}. */
    public static final int DEFAULT_MAX_PENDING_PER_CONNECTION = 64;
    /** The default {@link #maxPendingBytes()}: 4 MiB. */
    public static final long DEFAULT_MAX_PENDING_BYTES = 4L << 20;
    /** The default {@link #maxSubjects()}. */
    public static final int DEFAULT_MAX_SUBJECTS = 1_024;
    /** The default {@link #maxKeyDedupBytes()}: 64 MiB, sixteen streams at the 4 MiB docs/outbox.md suggests. */
    public static final long DEFAULT_MAX_KEY_DEDUP_BYTES = 64L << 20;

    /** Every key, without the namespace, for the configuration reference and the check of unknown keys. */
    public static final List<ConfigKey> KEYS = List.of(
            ConfigKey.of("enabled", ConfigKey.BOOLEAN, "true", "Serve JetStream's API ($JS.API.>); the command "
                    + "line's --no-jetstream is false."),
            ConfigKey.of("max_streams", ConfigKey.INTEGER, String.valueOf(DEFAULT_MAX_STREAMS), "The most streams, "
                    + "durable subjects' included (the local log runs a flusher thread per stream)."),
            ConfigKey.of("max_pending_requests", ConfigKey.INTEGER, String.valueOf(DEFAULT_MAX_PENDING_REQUESTS),
                    "API requests queued, all clients together; more are answered 503."),
            ConfigKey.of("max_pending_per_connection", ConfigKey.INTEGER,
                    String.valueOf(DEFAULT_MAX_PENDING_PER_CONNECTION), "API requests queued for one connection."),
            ConfigKey.of("max_pending_bytes", ConfigKey.INTEGER, String.valueOf(DEFAULT_MAX_PENDING_BYTES),
                    "Bytes of API requests queued, all clients together."),
            ConfigKey.of("max_subjects", ConfigKey.INTEGER, String.valueOf(DEFAULT_MAX_SUBJECTS), "Subjects of all "
                    + "streams together: every overlap check and a published subject's lookup cost in proportion."),
            ConfigKey.of("max_key_dedup_bytes", ConfigKey.INTEGER, String.valueOf(DEFAULT_MAX_KEY_DEDUP_BYTES),
                    "The ringbus_key_dedup_bytes of all streams together, --durable ones included: a create or "
                            + "update past it is refused (the per-key outbox ids live in memory and outlive the "
                            + "messages)."));

    /**
     * Checks every value.
     *
     * @throws IllegalArgumentException naming the value when one is not positive
     */
    public JetStreamSettings {
        positive("max_streams", maxStreams);
        positive("max_pending_requests", maxPendingRequests);
        positive("max_pending_per_connection", maxPendingPerConnection);
        positive("max_pending_bytes", maxPendingBytes);
        positive("max_subjects", maxSubjects);
        positive("max_key_dedup_bytes", maxKeyDedupBytes);
    }

    /** @return the defaults: enabled */
    public static JetStreamSettings defaults() {
        return new JetStreamSettings(true, DEFAULT_MAX_STREAMS, DEFAULT_MAX_PENDING_REQUESTS,
                DEFAULT_MAX_PENDING_PER_CONNECTION, DEFAULT_MAX_PENDING_BYTES, DEFAULT_MAX_SUBJECTS,
                DEFAULT_MAX_KEY_DEDUP_BYTES);
    }

    /**
     * @param settings the server's {@code jetstream.*} entries
     * @return the settings they give, defaults for the rest
     * @throws IllegalArgumentException naming the key and value when a key is unknown or a value is not valid
     */
    public static JetStreamSettings from(ExtensionSettings settings) {
        for (String key : settings.entries().keySet()) {
            if (KEYS.stream().noneMatch(k -> k.name().equals(key))) {
                throw new IllegalArgumentException("unknown key jetstream." + key + " ("
                        + String.join(", ", KEYS.stream().map(k -> "jetstream." + k.name()).toList())
                        + "; see docs/configuration.md)");
            }
        }
        return new JetStreamSettings(settings.flag("enabled", true),
                number(settings, "max_streams", DEFAULT_MAX_STREAMS),
                number(settings, "max_pending_requests", DEFAULT_MAX_PENDING_REQUESTS),
                number(settings, "max_pending_per_connection", DEFAULT_MAX_PENDING_PER_CONNECTION),
                number(settings, "max_pending_bytes", (int) DEFAULT_MAX_PENDING_BYTES),
                number(settings, "max_subjects", DEFAULT_MAX_SUBJECTS),
                longNumber(settings, "max_key_dedup_bytes", DEFAULT_MAX_KEY_DEDUP_BYTES));
    }

    private static long longNumber(ExtensionSettings settings, String key, long absent) {
        String value = settings.get(key).orElse(null);
        if (value == null) {
            return absent;
        }
        try {
            return Long.parseLong(value.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("jetstream." + key + " must be a number: '" + value + "'");
        }
    }

    private static int number(ExtensionSettings settings, String key, int absent) {
        String value = settings.get(key).orElse(null);
        if (value == null) {
            return absent;
        }
        try {
            return Integer.parseInt(value.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("jetstream." + key + " must be a number: '" + value + "'");
        }
    }

    private static void positive(String key, long value) {
        if (value < 1) {
            throw new IllegalArgumentException("jetstream." + key + " must be positive: " + value);
        }
    }
}
