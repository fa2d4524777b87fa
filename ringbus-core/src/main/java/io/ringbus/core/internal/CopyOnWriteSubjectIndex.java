package io.ringbus.core.internal;

import io.ringbus.core.Scope;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The subscriber index: which subscribers and which scope each subject has.
 *
 * <p>Copy-on-write: every change builds a new immutable {@link Snapshot} under a lock and
 * publishes it with one volatile write, so concurrent changes never lose an update. Publishers
 * never lock: they read the current snapshot and look the subject up in its route cache; on a
 * miss they compute the route from that snapshot's trie and scope table and cache it there. A
 * route cached into a snapshot that was replaced meanwhile is simply never read again. The cache
 * holds at most {@code routeCacheSize} subjects; when full it is cleared and refilled (counted).
 */
final class CopyOnWriteSubjectIndex {
    private final int eventLoops;
    private final int routeCacheSize;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final LongAdder cacheResets = new LongAdder();
    private volatile Snapshot snapshot;

    CopyOnWriteSubjectIndex(Scope defaultScope, int eventLoops, int routeCacheSize) {
        this.eventLoops = eventLoops;
        this.routeCacheSize = routeCacheSize;
        this.snapshot = new Snapshot(SubjectTrie.EMPTY, new ScopeTable(defaultScope));
    }

    /**
     * Returns the route of a subject to publish to.
     *
     * @throws IllegalArgumentException naming the subject when it is malformed or has wildcards
     */
    Route route(String subject) {
        Snapshot current = snapshot;
        // A null subject fails the cache lookup's contract, so it takes the slow path and is named there.
        Route route = subject == null ? null : current.routes.get(subject);
        return route != null ? route : routeSlowPath(current, subject);
    }

    private Route routeSlowPath(Snapshot current, String subject) {
        String[] tokens = SubjectPattern.literalTokens(subject, "subject");
        List<Subscriber> candidates = new ArrayList<>();
        current.trie.collect(tokens, candidates);
        Route route = Route.build(current.scopes.scopeOf(tokens), candidates, eventLoops);
        if (current.routes.size() >= routeCacheSize) {
            current.routes.clear();
            cacheResets.increment();
        }
        Route raced = current.routes.putIfAbsent(subject, route);
        return raced != null ? raced : route;
    }

    /** @return the scope of a literal subject given as tokens */
    Scope scopeOf(String[] tokens) {
        return snapshot.scopes.scopeOf(tokens);
    }

    void add(Subscriber subscriber) {
        writeLock.lock();
        try {
            Snapshot current = snapshot;
            snapshot = new Snapshot(current.trie.add(subscriber), current.scopes);
        } finally {
            writeLock.unlock();
        }
    }

    void remove(Subscriber subscriber) {
        writeLock.lock();
        try {
            Snapshot current = snapshot;
            SubjectTrie trie = current.trie.remove(subscriber);
            if (trie != current.trie) {
                snapshot = new Snapshot(trie, current.scopes);
            }
        } finally {
            writeLock.unlock();
        }
    }

    void register(SubjectPattern pattern, Scope scope) {
        writeLock.lock();
        try {
            Snapshot current = snapshot;
            snapshot = new Snapshot(current.trie, current.scopes.with(pattern, scope));
        } finally {
            writeLock.unlock();
        }
    }

    /** @return how many times a full route cache was cleared */
    long cacheResets() {
        return cacheResets.sum();
    }

    private static final class Snapshot {
        final SubjectTrie trie;
        final ScopeTable scopes;
        final ConcurrentHashMap<String, Route> routes = new ConcurrentHashMap<>();

        Snapshot(SubjectTrie trie, ScopeTable scopes) {
            this.trie = trie;
            this.scopes = scopes;
        }
    }
}
