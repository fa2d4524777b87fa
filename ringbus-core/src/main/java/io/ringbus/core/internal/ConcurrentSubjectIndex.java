package io.ringbus.core.internal;

import io.ringbus.core.Scope;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The subscriber index: which subscribers and which scope each subject has.
 *
 * <p>A {@link SubjectTrie} changed in place under one write lock, and a route cache that
 * publishers read without locks. A publisher looks its subject up in the cache; on a miss it
 * computes the route from the trie and scope table and caches it. A change invalidates only the
 * cached routes it affects: a literal subscription the one subject it names (O(1)), a wildcard
 * subscription the cached subjects it matches (a scan of the cache, as nats-server's sublist
 * does). So adding or removing a subscription costs O(subject depth) whatever the number of
 * subscriptions, and routes of unrelated subjects stay cached.
 *
 * <p>Race: a publisher may compute a route from a trie that a writer is changing. Writers bump
 * {@link #version} after changing the trie and before invalidating; a publisher reads it before
 * computing and again after caching, and takes its route back out if it moved. Either the
 * writer's invalidation comes after the publisher's put, or the publisher sees the new version.
 * A route already handed out may be one change old, as with any concurrent subscribe.
 *
 * <p>The cache holds at most {@code routeCacheSize} subjects; when full it is cleared and
 * refilled (counted). A subject enters it on its second lookup, so subjects published to once
 * (reply inboxes) never push the hot ones out.
 */
final class ConcurrentSubjectIndex {
    /** Slots of the table of subjects seen once; a power of two. */
    private static final int SEEN_SLOTS = 4096;
    private final int eventLoops;
    private final int routeCacheSize;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final LongAdder cacheResets = new LongAdder();
    private final SubjectTrie trie = new SubjectTrie();
    private final ConcurrentHashMap<String, Route> routes = new ConcurrentHashMap<>();
    private volatile ScopeTable scopes;
    /** Hashes of subjects whose route was built once and not cached ({@link #admitted}). */
    private final int[] seen = new int[SEEN_SLOTS];
    private volatile long version;

    ConcurrentSubjectIndex(Scope defaultScope, int eventLoops, int routeCacheSize) {
        this.eventLoops = eventLoops;
        this.routeCacheSize = routeCacheSize;
        this.scopes = new ScopeTable(defaultScope);
    }

    /**
     * Returns the route of a subject to publish to.
     *
     * @throws IllegalArgumentException naming the subject when it is malformed or has wildcards
     */
    Route route(String subject) {
        // A null subject fails the cache lookup's contract, so it takes the slow path and is named there.
        Route route = subject == null ? null : routes.get(subject);
        return route != null ? route : routeSlowPath(subject);
    }

    private Route routeSlowPath(String subject) {
        String[] tokens = SubjectPattern.literalTokens(subject, "subject");
        long before = version;
        Route route = build(tokens, scopes.scopeOf(tokens));
        if (!route.keepsState() && !admitted(subject)) {
            return route;
        }
        if (routes.size() >= routeCacheSize) {
            routes.clear();
            cacheResets.increment();
        }
        Route raced = routes.putIfAbsent(subject, route);
        if (raced != null) {
            return raced;
        }
        if (version != before) {
            routes.remove(subject, route);
        }
        return route;
    }

    /**
     * Whether a route just built is worth caching: only a subject seen before (its hash remembered
     * in a small direct-mapped table; a collision only delays or grants one admission). A subject
     * published once, as every reply inbox a PubAck or a response goes to, is never cached: it
     * would only push the hot routes out (the cache is cleared when full).
     */
    private boolean admitted(String subject) {
        int hash = subject.hashCode();
        int slot = (hash ^ (hash >>> 16)) & (SEEN_SLOTS - 1);
        if (seen[slot] == hash) {
            return true;
        }
        seen[slot] = hash; // a racy write: at worst a subject is admitted one sighting later
        return false;
    }

    /**
     * Returns the route of a subject taken as the bytes it is, as nats-server routes a subject
     * that is not a valid one (empty tokens, wildcard tokens): its tokens are split on '.'; a
     * subject with an empty token reaches nobody, and a wildcard token matches only subscriptions
     * with a wildcard there. Such routes are not cached.
     *
     * @throws IllegalArgumentException when the subject is null or empty
     */
    Route routeVerbatim(String subject) {
        Route route = subject == null ? null : routes.get(subject);
        if (route != null) {
            return route;
        }
        if (SubjectPattern.isLiteral(subject)) {
            return routeSlowPath(subject);
        }
        String[] tokens = SubjectPattern.verbatimTokens(subject);
        for (String token : tokens) {
            if (token.isEmpty()) {
                // As nats-server's sublist: a subject with an empty token matches no subscription.
                return Route.build(scopes.scopeOf(tokens), tokens, List.of(), eventLoops);
            }
        }
        return build(tokens, scopes.scopeOf(tokens));
    }

    /**
     * Returns the route of a subject for messages of a higher scope than its own (a reply to a
     * requester of that scope); not cached.
     */
    Route routeAtScope(Route ofSubject, Scope scope) {
        return build(ofSubject.tokens, scope);
    }

    private Route build(String[] tokens, Scope scope) {
        List<Subscriber> candidates = new ArrayList<>();
        trie.collect(tokens, candidates);
        return Route.build(scope, tokens, candidates, eventLoops);
    }

    /**
     * @return the scope of a subject to publish to, found without splitting it
     * @throws IllegalArgumentException naming {@code what} when it is not a valid literal subject
     */
    Scope scopeOfLiteral(String subject, String what) {
        if (SubjectPattern.isLiteral(subject)) {
            return scopes.scopeOf(subject);
        }
        return scopes.scopeOf(SubjectPattern.literalTokens(subject, what)); // throws, naming what is wrong
    }

    /** @return the scope of a subject given as tokens */
    Scope scopeOf(String[] tokens) {
        return scopes.scopeOf(tokens);
    }

    /** @return the highest scope a subject matching {@code pattern} can have ({@link ScopeTable#maxScopeOf}) */
    Scope maxScopeOf(SubjectPattern pattern) {
        return scopes.maxScopeOf(pattern);
    }

    void add(Subscriber subscriber) {
        writeLock.lock();
        try {
            trie.add(subscriber);
            changed(subscriber.subjectPattern());
        } finally {
            writeLock.unlock();
        }
    }

    void remove(Subscriber subscriber) {
        writeLock.lock();
        try {
            if (trie.remove(subscriber)) {
                changed(subscriber.subjectPattern());
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** Writer: publishes the change to racing publishers, then drops the routes it affects. */
    private void changed(SubjectPattern pattern) {
        version++; // volatile write, under the write lock: no lost increment
        if (!pattern.isWildcard()) {
            routes.remove(pattern.text());
            return;
        }
        for (Iterator<Route> it = routes.values().iterator(); it.hasNext(); ) {
            if (pattern.matches(it.next().tokens)) {
                it.remove();
            }
        }
    }

    void register(SubjectPattern pattern, Scope scope) {
        writeLock.lock();
        try {
            scopes = scopes.with(pattern, scope);
            version++;
            routes.clear();
        } finally {
            writeLock.unlock();
        }
    }

    /** @return how many times a full route cache was cleared */
    long cacheResets() {
        return cacheResets.sum();
    }
}
