package io.ringbus.core.internal;

import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.PublishRejectedException;
import io.ringbus.core.Scope;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.wire.HeaderNames;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The broker's durable subject patterns and the streams that store them. A publish asks
 * {@link #streamFor} first: one volatile read when no pattern is durable, else a cached lookup per
 * subject. Patterns may not overlap (as JetStream's streams may not), so a subject has one stream.
 *
 * <p>Thread-safe: lookups from any publisher; registration under a lock, copy on write.
 */
final class DurableSubjects {
    /** The default store's directory, relative to the working directory. */
    static final Path DEFAULT_DIR = Path.of("data");
    private static final int MAX_CACHED = 65_536;
    private static final Object NONE = new Object();

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Object> cache = new ConcurrentHashMap<>();
    private Storage storage;
    private volatile Entry[] entries = new Entry[0];
    /** {@link #streams()} of the entries it was made from (JetStream's consumers ask on every delivery round). */
    private volatile Listed listed;
    /** What {@link #streamFor} checks before it caches a subject, made once per change of the entries. */
    private volatile FirstTokens firstTokens;

    /** A durable pattern, its scope and its stream. */
    record Entry(SubjectPattern pattern, Scope scope, StoredStream stream) {
    }

    /** The distinct streams of an array of entries. */
    private record Listed(Entry[] from, List<StoredStream> streams) {
    }

    /** The first tokens of the patterns of an array of entries; null when one is a wildcard. */
    private record FirstTokens(Entry[] from, Set<String> tokens) {
        static Set<String> of(Entry[] entries) {
            Set<String> tokens = new HashSet<>();
            for (Entry entry : entries) {
                String first = entry.pattern.token(0);
                if (first.equals("*") || first.equals(">")) {
                    return null;
                }
                tokens.add(first);
            }
            return Set.copyOf(tokens);
        }
    }

    DurableSubjects(Storage storage) {
        this.storage = storage;
    }

    /** @return whether any pattern is durable (the publish path's fast check) */
    boolean any() {
        return entries.length != 0;
    }

    /**
     * Registers a stream under each of its patterns, each with the scope {@code scopeOf} gives it.
     * A stream registered again with the same patterns is returned as it is.
     *
     * @throws IllegalArgumentException when a pattern overlaps another stream's
     */
    StoredStream register(StreamConfig config, Function<SubjectPattern, Scope> scopeOf) {
        List<SubjectPattern> patterns = config.subjects().stream().map(SubjectPattern::parse).toList();
        lock.lock();
        try {
            Entry[] current = entries;
            for (Entry entry : current) {
                if (entry.stream.config().subjects().equals(config.subjects())) {
                    return entry.stream;
                }
            }
            requireNoOverlap(current, patterns, null);
            if (storage == null) {
                storage = Storage.local(DEFAULT_DIR);
            }
            StoredStream stream = storage.stream(config);
            List<Entry> next = new ArrayList<>(Arrays.asList(current));
            for (SubjectPattern pattern : patterns) {
                next.add(new Entry(pattern, scopeOf.apply(pattern), stream));
            }
            entries = next.toArray(Entry[]::new);
            cache.clear();
            return stream;
        } finally {
            lock.unlock();
        }
    }

    private static void requireNoOverlap(Entry[] current, List<SubjectPattern> patterns, String self) {
        for (Entry entry : current) {
            if (entry.stream.config().name().equals(self)) {
                continue;
            }
            for (SubjectPattern pattern : patterns) {
                if (overlap(entry.pattern, pattern)) {
                    throw new IllegalArgumentException("durable pattern '" + pattern.text()
                            + "' overlaps durable pattern '" + entry.pattern.text() + "' (stream '"
                            + entry.stream.config().name() + "'): a subject is stored in one stream");
                }
            }
        }
    }

    /**
     * Opens a registered stream again with {@code config} (its name), keeping the scope of each
     * pattern it keeps, giving a new pattern {@code scopeIfMoved}'s.
     */
    StoredStream update(StreamConfig config, Function<SubjectPattern, Scope> scopeIfMoved) {
        List<SubjectPattern> patterns = config.subjects().stream().map(SubjectPattern::parse).toList();
        lock.lock();
        try {
            Entry[] current = entries;
            Map<SubjectPattern, Scope> kept = new HashMap<>();
            for (Entry entry : current) {
                if (entry.stream.config().name().equals(config.name())) {
                    kept.put(entry.pattern, entry.scope);
                }
            }
            if (kept.isEmpty()) {
                throw new IllegalArgumentException("no durable stream named '" + config.name() + "'");
            }
            requireNoOverlap(current, patterns, config.name());
            StoredStream stream = storage.reconfigure(config);
            List<Entry> next = new ArrayList<>();
            for (Entry entry : current) {
                if (!entry.stream.config().name().equals(config.name())) {
                    next.add(entry);
                }
            }
            for (SubjectPattern pattern : patterns) {
                Scope scope = kept.get(pattern);
                next.add(new Entry(pattern, scope != null ? scope : scopeIfMoved.apply(pattern), stream));
            }
            entries = next.toArray(Entry[]::new);
            cache.clear();
            return stream;
        } finally {
            lock.unlock();
        }
    }

    /** Unregisters the stream {@code name} and deletes it from the store; @return whether it existed */
    boolean delete(String name) {
        lock.lock();
        try {
            Entry[] current = entries;
            entries = Arrays.stream(current).filter(e -> !e.stream.config().name().equals(name))
                    .toArray(Entry[]::new);
            boolean registered = entries.length != current.length;
            cache.clear();
            return (storage != null && storage.delete(name)) || registered;
        } finally {
            lock.unlock();
        }
    }

    /** @return the registered streams, in order (the list made once per change of the entries) */
    List<StoredStream> streams() {
        Entry[] current = entries;
        Listed made = listed;
        if (made == null || made.from != current) {
            made = new Listed(current, Arrays.stream(current).map(Entry::stream).distinct().toList());
            listed = made;
        }
        return made.streams;
    }

    void unregister(String pattern) {
        SubjectPattern parsed = SubjectPattern.parse(pattern);
        lock.lock();
        try {
            entries = Arrays.stream(entries).filter(e -> !e.pattern.equals(parsed)).toArray(Entry[]::new);
            cache.clear();
        } finally {
            lock.unlock();
        }
    }

    /** @return the stream storing {@code subject}, or null when it is not durable */
    StoredStream streamFor(String subject) {
        Object cached = cache.get(subject);
        if (cached == null) {
            if (!mayBeStored(subject)) {
                // Not cached: a reply inbox or an ack subject is published to once, and would only
                // push the stored subjects out of the cache (cleared when full).
                return null;
            }
            cached = NONE;
            String[] tokens = SubjectPattern.verbatimTokens(subject);
            for (Entry entry : entries) {
                if (entry.pattern.matches(tokens)) {
                    cached = entry.stream;
                    break;
                }
            }
            if (cache.size() >= MAX_CACHED) {
                cache.clear();
            }
            cache.put(subject, cached);
        }
        return cached == NONE ? null : (StoredStream) cached;
    }

    /** @return false when no durable pattern can match {@code subject}: none starts with its first token */
    private boolean mayBeStored(String subject) {
        Entry[] current = entries;
        FirstTokens made = firstTokens;
        if (made == null || made.from != current) {
            made = new FirstTokens(current, FirstTokens.of(current));
            firstTokens = made;
        }
        if (made.tokens == null) {
            return true;
        }
        int dot = subject.indexOf('.');
        return made.tokens.contains(dot < 0 ? subject : subject.substring(0, dot));
    }

    /** @return the highest scope a pattern of the stream named {@code name} has, or null when none is registered */
    Scope scopeOfStream(String name) {
        Scope highest = null;
        for (Entry entry : entries) {
            if (entry.stream.config().name().equals(name) && (highest == null || !highest.includes(entry.scope))) {
                highest = entry.scope;
            }
        }
        return highest;
    }

    /** @return the durable entry whose pattern covers every subject {@code pattern} matches, or null */
    Entry covering(SubjectPattern pattern) {
        for (Entry entry : entries) {
            if (covers(entry.pattern, pattern)) {
                return entry;
            }
        }
        return null;
    }

    /**
     * Stores a message before it is published live.
     *
     * @param wait whether to wait for room and for durability
     * @return the ack future (completed when {@code wait}), or null when the stream had no room
     */
    static CompletableFuture<PublishAck> store(StoredStream stream, String subject, Headers headers, Object payload,
                                               boolean wait) {
        byte[] bytes = bytes(subject, payload);
        // A block over the limit is refused by the stream unread: its id is not looked for (parsing
        // 64k+ of header per publish was an attacker's way to hold an event loop).
        byte[] block = headers == null ? null : headers.natsBlock();
        String msgId = headers == null || block != null && block.length > PublishRejectedException.MAX_HEADER_BYTES
                ? null : headers.first(HeaderNames.MSG_ID);
        if (!wait) {
            return stream.tryAppend(subject, headers, bytes, msgId);
        }
        CompletableFuture<PublishAck> ack = stream.append(subject, headers, bytes, msgId);
        try {
            ack.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof PublishRejectedException refused) {
                throw refused; // the stream refused the message (an expectation, a limit): not a store failure
            }
            throw cause instanceof StorageException se ? se
                    : new StorageException("storing '" + subject + "' failed: " + cause, cause);
        }
        return ack;
    }

    private static byte[] bytes(String subject, Object payload) {
        if (payload == null) {
            return new byte[0];
        }
        if (payload instanceof byte[] b) {
            return b;
        }
        if (payload instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("subject '" + subject + "' is durable: its payload must be a byte[] or a "
                + "String to be stored, not a " + payload.getClass().getName());
    }

    /** @return whether some subject matches both patterns */
    static boolean overlap(SubjectPattern a, SubjectPattern b) {
        return SubjectPattern.overlap(a, b);
    }

    /** @return whether every subject {@code inner} matches is matched by {@code outer} */
    static boolean covers(SubjectPattern outer, SubjectPattern inner) {
        for (int i = 0; i < outer.size(); i++) {
            String o = outer.token(i);
            if (o.equals(SubjectPattern.GREATER)) {
                return i < inner.size();
            }
            if (i >= inner.size()) {
                return false;
            }
            String t = inner.token(i);
            if (t.equals(SubjectPattern.GREATER)) {
                return false;
            }
            if (!o.equals(SubjectPattern.STAR) && (t.equals(SubjectPattern.STAR) || !o.equals(t))) {
                return false;
            }
        }
        return outer.size() == inner.size();
    }

    /** Closes the store (the broker's close). */
    void close() {
        lock.lock();
        try {
            if (storage != null) {
                storage.close();
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return the store, or null when none was opened */
    Storage storage() {
        return storage;
    }
}
