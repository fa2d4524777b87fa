package io.ringbus.core;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
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
 * @param subjects              the subject patterns it stores, with {@code *} and {@code >} wildcards:
 *                              at least one, none twice, no two overlapping (a subject is stored once)
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
 * @param keyDedupBytes         0 (off, the default), or the most memory, in bytes, the per-key outbox ids
 *                              may take: a message carrying {@code Ringbus-Key} and a
 *                              {@code Ringbus-Event-Id} that ends in a number (an outbox's prefix and
 *                              row id) is a duplicate, with no time window, when its number is at or
 *                              below the highest stored for that prefix and key (each key counts its
 *                              prefix and key characters twice plus {@value #KEY_DEDUP_ENTRY_OVERHEAD}
 *                              bytes; past the bound the least recently updated key is forgotten,
 *                              counted, and falls back to the duplicate window). Opt-in: correct only
 *                              for publishers that never store a key's number N+1 before N (see
 *                              docs/outbox.md, "JetStream sink: duplicates")
 * @param replicas              copies kept by a clustered store (JetStream R1..R5); 1 for the local log
 * @param retention             whether messages stay until a limit removes them, or go once consumed
 * @param admission             what the stream admits: the limits' discard policy, the largest message,
 *                              roll-ups, whether it is sealed
 * @param medium                where its messages live: on the disk, or in memory only (JetStream's
 *                              {@code storage: memory}: never forced, gone at a restart)
 */
public record StreamConfig(String name, List<String> subjects, Duration maxAge, long maxBytes, long maxMessages,
                           long maxMessagesPerSubject, Duration duplicateWindow, long duplicateWindowBytes,
                           long keyDedupBytes, int replicas,
                           Retention retention, Admission admission, Medium medium) {
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

    /** Where a stream's messages live (JetStream's {@code storage}). */
    public enum Medium {
        /** On the disk, forced as the store's policy says (the default). */
        FILE,
        /**
         * In memory only, as JetStream's memory streams: the local store keeps them in the page cache
         * and never forces them (a publish is acknowledged once written), counts them against its
         * memory limit, and opens the stream empty after a restart (its configuration stays).
         */
        MEMORY
    }

    /** What a stream does with a message that would take it past a limit (JetStream's discard policy). */
    public enum Discard {
        /** The oldest messages go to make room (the default). */
        OLD,
        /**
         * The new message is refused, with JetStream's store error, while the stream is at its
         * message or byte limit; the per-subject limit still drops that subject's oldest unless
         * {@link Admission#discardNewPerSubject()}.
         */
        NEW
    }

    /**
     * What a stream admits, checked under its append lock with the message's JetStream headers
     * ({@code Nats-Expected-Stream}, {@code -Last-Sequence}, {@code -Last-Subject-Sequence},
     * {@code -Last-Msg-Id} are always enforced).
     *
     * @param discard              what goes when a limit is reached
     * @param discardNewPerSubject with {@link Discard#NEW}: a subject at its per-subject limit refuses new messages
     * @param maxMessageSize       the most bytes of headers and payload one message may have, or -1
     * @param allowRollup          whether {@code Nats-Rollup: sub} / {@code all} is honoured (refused otherwise)
     * @param sealed               whether the stream refuses every new message
     */
    public record Admission(Discard discard, boolean discardNewPerSubject, long maxMessageSize, boolean allowRollup,
                            boolean sealed) {
        /** Discard old, any size, no roll-ups, not sealed. */
        public static final Admission DEFAULT = new Admission(Discard.OLD, false, -1, false, false);

        /**
         * Checks every field.
         *
         * @throws IllegalArgumentException naming the value that is out of range
         */
        public Admission {
            Objects.requireNonNull(discard, "discard");
            if (discardNewPerSubject && discard != Discard.NEW) {
                throw new IllegalArgumentException("discardNewPerSubject needs discard NEW: discard=" + discard);
            }
            if (maxMessageSize == 0 || maxMessageSize < -1) {
                throw new IllegalArgumentException("maxMessageSize must be positive or -1 (unlimited): maxMessageSize="
                        + maxMessageSize);
            }
        }
    }

    /** The default duplicate window: two minutes, as JetStream's. */
    public static final Duration DEFAULT_DUPLICATE_WINDOW = Duration.ofMinutes(2);
    /** The default {@link #duplicateWindowBytes()}: 16 MiB per stream. */
    public static final long DEFAULT_DUPLICATE_WINDOW_BYTES = 16L << 20;
    /** The smallest {@link #duplicateWindowBytes()} accepted: room for a few ids. */
    public static final long MIN_DUPLICATE_WINDOW_BYTES = 1024;
    /** What one remembered id costs besides its characters (map entry, string, sequence), in bytes. */
    public static final int DUPLICATE_ENTRY_OVERHEAD = 128;
    /** The {@link #keyDedupBytes()} a stream that turns per-key outbox ids on gets unless it says: 4 MiB. */
    public static final long DEFAULT_KEY_DEDUP_BYTES = 4L << 20;
    /** The smallest {@link #keyDedupBytes()} accepted when on: room for a few keys. */
    public static final long MIN_KEY_DEDUP_BYTES = 1024;
    /** What one remembered key costs besides its characters (map entry, strings, numbers), in bytes. */
    public static final int KEY_DEDUP_ENTRY_OVERHEAD = 128;

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
        subjects = checkSubjects(subjects);
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
        if (keyDedupBytes != 0 && keyDedupBytes < MIN_KEY_DEDUP_BYTES) {
            throw new IllegalArgumentException("keyDedupBytes must be 0 (off) or at least " + MIN_KEY_DEDUP_BYTES
                    + ": keyDedupBytes=" + keyDedupBytes);
        }
        Objects.requireNonNull(retention, "retention");
        if (replicas < 1 || replicas > 5) {
            throw new IllegalArgumentException("replicas must be in 1..5: replicas=" + replicas);
        }
        Objects.requireNonNull(admission, "admission");
        Objects.requireNonNull(medium, "medium");
    }

    private static List<String> checkSubjects(List<String> subjects) {
        Objects.requireNonNull(subjects, "subjects");
        if (subjects.isEmpty()) {
            throw new IllegalArgumentException("a stream stores at least one subject pattern: subjects=[]");
        }
        List<String> copy = List.copyOf(subjects);
        for (String pattern : copy) {
            Subject.requirePattern(pattern);
        }
        if (new HashSet<>(copy).size() != copy.size()) {
            throw new IllegalArgumentException("a subject pattern is named twice: subjects=" + copy);
        }
        int[] overlap = Subject.firstOverlap(copy); // O(n × wildcards): a stream may have many subjects
        if (overlap != null) {
            throw new IllegalArgumentException("subject patterns '" + copy.get(overlap[0]) + "' and '"
                    + copy.get(overlap[1]) + "' overlap: a subject is stored once: subjects=" + copy);
        }
        return copy;
    }

    /** @return whether some subject this stream stores also matches {@code pattern} */
    public boolean overlaps(String pattern) {
        for (String mine : subjects) {
            if (Subject.overlap(mine, pattern)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether this stream stores {@code subject} (a literal subject) */
    public boolean stores(String subject) {
        for (String mine : subjects) {
            if (Subject.matches(mine, subject)) {
                return true;
            }
        }
        return false;
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
        return new StreamConfig(name.toString(), List.of(subjects), null, -1, -1, -1, DEFAULT_DUPLICATE_WINDOW,
                DEFAULT_DUPLICATE_WINDOW_BYTES, 0, 1, Retention.LIMITS, Admission.DEFAULT, Medium.FILE);
    }

    /**
     * @param patterns the subject patterns the stream stores
     * @return a copy storing them
     */
    public StreamConfig withSubjects(List<String> patterns) {
        return new StreamConfig(name, patterns, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, replicas, retention, admission, medium);
    }

    /**
     * @param where where its messages live
     * @return a copy kept there
     */
    public StreamConfig withMedium(Medium where) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, replicas, retention, admission, where);
    }

    /**
     * @param rules what the stream admits
     * @return a copy with those rules
     */
    public StreamConfig withAdmission(Admission rules) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, replicas, retention, rules, medium);
    }

    /**
     * @param newName the stream's name
     * @return a copy with that name
     */
    public StreamConfig withName(String newName) {
        return new StreamConfig(newName, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, replicas, retention, admission, medium);
    }

    /**
     * @param age how long a message is kept, or {@code null}
     * @return a copy with that limit
     */
    public StreamConfig withMaxAge(Duration age) {
        return new StreamConfig(name, subjects, age, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, replicas, retention, admission, medium);
    }

    /**
     * @param bytes the most bytes kept, or -1
     * @return a copy with that limit
     */
    public StreamConfig withMaxBytes(long bytes) {
        return new StreamConfig(name, subjects, maxAge, bytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, replicas, retention, admission, medium);
    }

    /**
     * @param messages the most messages kept, or -1
     * @return a copy with that limit
     */
    public StreamConfig withMaxMessages(long messages) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, messages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, replicas, retention, admission, medium);
    }

    /**
     * @param perSubject the most messages kept per subject, or -1
     * @return a copy with that limit
     */
    public StreamConfig withMaxMessagesPerSubject(long perSubject) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, perSubject, duplicateWindow,
                duplicateWindowBytes, keyDedupBytes, replicas, retention, admission, medium);
    }

    /**
     * @param window how long message ids are remembered
     * @return a copy with that window
     */
    public StreamConfig withDuplicateWindow(Duration window) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject, window,
                duplicateWindowBytes, keyDedupBytes, replicas, retention, admission, medium);
    }

    /**
     * @param bytes the most memory the remembered message ids may take
     * @return a copy with that bound
     */
    public StreamConfig withDuplicateWindowBytes(long bytes) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, bytes, keyDedupBytes, replicas, retention, admission, medium);
    }

    /**
     * @param bytes 0 to turn per-key outbox ids off, or the most memory they may take (see
     *              {@link #keyDedupBytes()})
     * @return a copy with that setting
     */
    public StreamConfig withKeyDedupBytes(long bytes) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, bytes, replicas, retention, admission, medium);
    }

    /**
     * @param policy when stored messages go besides the limits
     * @return a copy with that retention
     */
    public StreamConfig withRetention(Retention policy) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, replicas, policy, admission, medium);
    }

    /**
     * @param count copies kept by a clustered store, 1..5
     * @return a copy with that count
     */
    public StreamConfig withReplicas(int count) {
        return new StreamConfig(name, subjects, maxAge, maxBytes, maxMessages, maxMessagesPerSubject,
                duplicateWindow, duplicateWindowBytes, keyDedupBytes, count,
                retention, admission, medium);
    }
}
