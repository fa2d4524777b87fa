package io.ringbus.core.internal;

import io.ringbus.core.Scope;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reply subjects of requests made by clients of a higher scope than the reply subject's own:
 * a reply is data of the requester's scope, so a subscriber below that scope must not receive it,
 * whatever pattern it holds ({@code _INBOX.>}, {@code >}).
 *
 * <p>An entry lives {@code ttlNanos} after its request (replies after that are delivered at the
 * reply subject's own scope); at most {@code maxEntries} live at once. When full, a request that
 * needs an entry is refused (the caller's backpressure: the network front stops reading that
 * client) rather than an entry evicted early, which would leak a reply. Entries expire in
 * insertion order (one TTL for all), swept by the threads that add.
 */
final class ReplyScopes {
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Entry> byAge = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final long ttlNanos;
    private final int maxEntries;

    private record Entry(String subject, Scope scope, long expiresNanos) {
    }

    ReplyScopes(long ttlNanos, int maxEntries) {
        this.ttlNanos = ttlNanos;
        this.maxEntries = maxEntries;
    }

    /**
     * Records that replies to {@code replyTo} are of {@code scope} (a higher one wins).
     *
     * @return {@code false} when the table is full (the request must wait or be refused)
     */
    boolean remember(String replyTo, Scope scope) {
        long now = System.nanoTime();
        sweep(now);
        if (size.get() >= maxEntries) {
            return false; // counted by the broker as a refused publish
        }
        Entry entry = new Entry(replyTo, scope, now + ttlNanos);
        Entry previous = entries.put(replyTo, entry);
        if (previous != null && previous.scope.ordinal() > scope.ordinal()) {
            entries.replace(replyTo, entry, new Entry(replyTo, previous.scope, entry.expiresNanos));
        }
        if (previous == null) {
            size.incrementAndGet();
        }
        byAge.offer(entry);
        return true;
    }

    /** @return the scope replies to {@code subject} must have, or {@code null} when it is no pending reply subject */
    Scope scopeOf(String subject) {
        if (size.get() == 0) {
            return null;
        }
        Entry entry = entries.get(subject);
        return entry == null || System.nanoTime() - entry.expiresNanos > 0 ? null : entry.scope;
    }

    private void sweep(long now) {
        for (Entry head = byAge.peek(); head != null && now - head.expiresNanos > 0; head = byAge.peek()) {
            if (byAge.remove(head)) {
                Entry current = entries.get(head.subject);
                // Only when no later request renewed it (a renewal is a newer entry, later in the queue).
                if (current != null && current.expiresNanos <= head.expiresNanos
                        && entries.remove(head.subject, current)) {
                    size.decrementAndGet();
                }
            }
        }
    }
}
