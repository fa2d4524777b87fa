package io.ringbus.core;

import java.time.Duration;
import java.util.Objects;

/**
 * A durable stream: the subjects it stores and how long it keeps them. Immutable; the
 * {@code with...} methods return changed copies.
 *
 * <p>Limits are enforced by the store (the local log deletes whole segments by age, bytes and
 * count; JetStream deletes messages). {@code -1} or {@code null} means unlimited.
 *
 * @param name                  the stream's name: letters, digits, {@code -} and {@code _}
 *                              (JetStream's rule for names that are also file names)
 * @param subjects              the subject pattern it stores, with {@code *} and {@code >} wildcards
 * @param maxAge                how long a message is kept, or {@code null} for ever
 * @param maxBytes              the most bytes kept, or -1
 * @param maxMessages           the most messages kept, or -1
 * @param maxMessagesPerSubject the most messages kept per subject, or -1 (1 makes the stream the
 *                              latest value of each subject)
 * @param duplicateWindow       how long message ids ({@code Nats-Msg-Id}) are remembered to drop
 *                              duplicates
 * @param duplicateWindowBytes  the most memory, in bytes, the remembered ids may take (each id counts
 *                              its characters twice plus {@value #DUPLICATE_ENTRY_OVERHEAD} bytes); past
 *                              it the oldest ids are forgotten before their window ends, and counted
 * @param replicas              copies kept by a clustered store (JetStream R1..R5); 1 for the local log
 * @param retention             whether messages stay until a limit removes them, or go once consumed
 */
public record StreamConfig(String name, String subjects, Duration maxAge, long maxBytes, long maxMessages,
                           long maxMessagesPerSubject, Duration duplicateWindow, long duplicateWindowBytes, int replicas,
                           Retention retention) {
    /** When stored messages go, besides the limits (JetStream's retention policies). */
    public enum Retention {
        /** Only the limits remove messages: every consumer may read everything retained (the default). */
        LIMITS,
        /**
         * A work queue: a message goes once the consumers acknowledged it. JetStream removes each
         * acknowledged message; the local log deletes whole segments once every consumer of the stream
         * acknowledged every record in them.
         */
        WORK_QUEUE
    }

    /** The default duplicate window: two minutes, as JetStream's. */
    public static final Duration DEFAULT_DUPLICATE_WINDOW = Duration.ofMinutes(2);
    /** The default {@link #duplicateWindowBytes()}: 16 MiB per stream. */
    public static final long DEFAULT_DUPLICATE_WINDOW_BYTES = 16L << 20;
    /** The smallest {@link #duplicateWindowBytes()} accepted: room for a few ids. */
    public static final long MIN_DUPLICATE_WINDOW_BYTES = 1024;
    /** What one remembered id costs besides its characters (map entry, string, sequence), in bytes. */
    public static final int DUPLICATE_ENTRY_OVERHEAD = 128;

    /**
     * Checks every field.
     *
     * @throws IllegalArgumentException naming the value that is out of range
     */
    public StreamConfig {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > 255) {
            throw new IllegalArgumentException("stream name must be 1..255 characters: name='" + name + "'");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                throw new IllegalArgumentException("stream name may hold only letters, digits, '-' and '_': name='"
                        + name + "'");
            }
        }
        Subject.requirePattern(subjects);
        if (maxAge != null && (maxAge.isNegative() || maxAge.isZero())) {
            throw new IllegalArgumentException("maxAge must be positive or null: maxAge=" + maxAge);
        }
        checkLimit("maxBytes", maxBytes);
        checkLimit("maxMessages", maxMessages);
        checkLimit("maxMessagesPerSubject", maxMessagesPerSubject);
        Objects.requireNonNull(duplicateWindow, "duplicateWindow");
        if (duplicateWindow.isNegative()) {
            throw new IllegalArgumentException("duplicateWindow must not be negative: duplicateWindow="
                    + duplicateWindow);
        }
        if (duplicateWindowBytes < MIN_DUPLICATE_WINDOW_BYTES) {
            throw new IllegalArgumentException("duplicateWindowBytes must be at least " + MIN_DUPLICATE_WINDOW_BYTES
                    + ": duplicateWindowBytes=" + duplicateWindowBytes);
        }
        Objects.requireNonNull(retention, "retention");
        if (replicas < 1 || replicas > 5) {
            throw new IllegalArgumentException("replicas must be in 1..5: replicas=" + replicas);
        }
    }

    private static void checkLimit(String name, long value) {
        if (value == 0 || value < -1) {
            throw new IllegalArgumentException(name + " must be positive or -1 (unlimited): " + name + "=" + value);
        }
    }

    /**
     * A stream named after its pattern ({@code orders.>} is {@code orders_all}), unlimited, with
     * the default duplicate window and one replica.
     *
     * @param subjects the subject pattern
     * @return the configuration
     * @throws IllegalArgumentException when the pattern is malformed
     */
    public static StreamConfig of(String subjects) {
        Subject.requirePattern(subjects);
        StringBuilder name = new StringBuilder(subjects.length() + 8);
        for (String token : subjects.split("\\.", -1)) {
            if (!name.isEmpty()) {
                name.append('_');
            }
            switch (token) {
                case "*" -> name.append("any");
                case ">" -> name.append("all");
                default -> {
                    for (int i = 0; i < token.length(); i++) {
                        char c = token.charAt(i);
                        boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-';
                        name.append(ok ? c : '-');
                    }
                }
            }
        }
        return new StreamConfig(name.toString(), subjects, null, -1, -1, -1, DEFAULT_DUPLICATE_WINDOW,
                DEFAULT_DUPLICATE_WINDOW_BYTES, 1, Retention.LIMITS);
    }

    /**
     * @param newName the stream's name
     * @return a copy with that name
     */
    public StreamConfig withName(String newName) {
        return new StreamConfig(newName, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, replicas, retention);
    }

    /**
     * @param age how long a message is kept, or {@code null}
     * @return a copy with that limit
     */
    public StreamConfig withMaxAge(Duration age) {
        return new StreamConfig(name, subjects, age, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, replicas, retention);
    }

    /**
     * @param bytes the most bytes kept, or -1
     * @return a copy with that limit
     */
    public StreamConfig withMaxBytes(long bytes) {
        return new StreamConfig(name, subjects, maxAge, bytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, replicas, retention);
    }

    /**
     * @param messages the most messages kept, or -1
     * @return a copy with that limit
     */
    public StreamConfig withMaxMessages(long messages) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, messages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, replicas, retention);
    }

    /**
     * @param perSubject the most messages kept per subject, or -1
     * @return a copy with that limit
     */
    public StreamConfig withMaxMessagesPerSubject(long perSubject) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, perSubject, duplicateWindow,
                duplicateWindowBytes, replicas, retention);
    }

    /**
     * @param window how long message ids are remembered
     * @return a copy with that window
     */
    public StreamConfig withDuplicateWindow(Duration window) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject, window,
                duplicateWindowBytes, replicas, retention);
    }

    /**
     * @param bytes the most memory the remembered message ids may take
     * @return a copy with that bound
     */
    public StreamConfig withDuplicateWindowBytes(long bytes) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, bytes, replicas, retention);
    }

    /**
     * @param policy when stored messages go besides the limits
     * @return a copy with that retention
     */
    public StreamConfig withRetention(Retention policy) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, replicas, policy);
    }

    /**
     * @param count copies kept by a clustered store, 1..5
     * @return a copy with that count
     */
    public StreamConfig withReplicas(int count) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, count,
                retention);
    }
}
