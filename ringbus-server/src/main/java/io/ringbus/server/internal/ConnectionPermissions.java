package io.ringbus.server.internal;

import io.ringbus.server.Permissions;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link Permissions} of one connection, with its caches: publish decisions per subject (the
 * event loop's, as nats-server's {@code pcache}), reply subjects it may answer
 * ({@code allow_responses}, as nats-server's {@code replies}) and denied delivery subjects (as
 * nats-server's {@code dcache}). Every cache is bounded in entries; a full one is cleared (the
 * decision cache) or drops its oldest entry (the replies).
 *
 * <p>Threading: {@link #mayPublish} and {@link #maySubscribe} run on the connection's event loop;
 * {@link #delivered} and {@link #deliverable} run on any publisher's thread.
 */
final class ConnectionPermissions {
    /** Publish decisions kept per connection (nats-server: {@code maxPermCacheSize}). */
    static final int PUBLISH_CACHE_SIZE = 128;
    /** Delivery decisions kept per connection (nats-server: {@code maxDenyPermCacheSize}). */
    static final int DENY_CACHE_SIZE = 256;
    /** Reply subjects tracked per connection for {@code allow_responses} (nats-server prunes at 4096 too). */
    static final int REPLIES_SIZE = 4096;

    private final PermissionList publishAllow;
    private final PermissionList publishDeny;
    private final PermissionList subscribeAllow;
    private final PermissionList subscribeDeny;
    private final Permissions.Responses responses;
    private final long expiresNanos;
    /** Event loop only. */
    private final Map<String, Boolean> publishCache = new HashMap<>();
    private final Map<String, Boolean> denyCache = new ConcurrentHashMap<>();
    private final ReentrantLock repliesLock = new ReentrantLock();
    /** Reply subject to its grant; insertion order, the oldest dropped when full. Guarded by {@link #repliesLock}. */
    private final LinkedHashMap<String, Grant> replies;

    /** A reply subject delivered to the client: when, and how many responses were published to it. */
    private static final class Grant {
        long deliveredNanos;
        int used;
    }

    ConnectionPermissions(Permissions permissions) {
        this.publishAllow = PermissionList.of(permissions.publishAllow());
        this.publishDeny = PermissionList.of(permissions.publishDeny());
        this.subscribeAllow = PermissionList.of(permissions.subscribeAllow());
        this.subscribeDeny = PermissionList.of(permissions.subscribeDeny());
        this.responses = permissions.responses();
        this.expiresNanos = responses == null ? 0 : responses.expires().toNanos();
        this.replies = responses == null ? null : new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Grant> eldest) {
                return size() > REPLIES_SIZE;
            }
        };
    }

    /**
     * Event loop: whether the client may publish to {@code subject}: the lists (cached), else a
     * reply subject delivered to it, which this call uses up once.
     */
    boolean mayPublish(String subject) {
        Boolean cached = publishCache.get(subject);
        if (cached == null) {
            boolean allowed = (publishAllow == null || publishAllow.matchesPlain(subject))
                    && !publishDeny.matchesPlain(subject);
            if (publishCache.size() >= PUBLISH_CACHE_SIZE) {
                publishCache.clear();
            }
            publishCache.put(subject, allowed);
            cached = allowed;
        }
        return cached || (replies != null && useReply(subject));
    }

    /** Any thread: whether the allow and deny lists let the client publish to {@code subject} (no cache, no reply grants). */
    boolean allowsPublish(String subject) {
        return (publishAllow == null || publishAllow.matchesPlain(subject)) && !publishDeny.matchesPlain(subject);
    }

    private boolean useReply(String subject) {
        repliesLock.lock();
        try {
            Grant grant = replies.get(subject);
            if (grant == null) {
                return false;
            }
            grant.used++;
            int max = responses.maxMessages();
            boolean expired = expiresNanos > 0 && System.nanoTime() - grant.deliveredNanos > expiresNanos;
            if ((max > 0 && grant.used > max) || expired) {
                replies.remove(subject);
                return false;
            }
            if (max > 0 && grant.used == max) {
                replies.remove(subject); // used up: no need to keep it
            }
            return true;
        } finally {
            repliesLock.unlock();
        }
    }

    /** @return whether {@code allow_responses} is on: deliveries must call {@link #delivered} */
    boolean tracksReplies() {
        return replies != null;
    }

    /** Any thread: a message with reply subject {@code replyTo} was delivered to the client. */
    void delivered(String replyTo) {
        long now = System.nanoTime();
        repliesLock.lock();
        try {
            Grant grant = replies.get(replyTo);
            if (grant == null) {
                grant = new Grant();
                replies.put(replyTo, grant);
                if (expiresNanos > 0 && replies.size() == REPLIES_SIZE) {
                    pruneExpired(now);
                }
            }
            grant.deliveredNanos = now;
            grant.used = 0;
        } finally {
            repliesLock.unlock();
        }
    }

    private void pruneExpired(long now) {
        for (Iterator<Grant> it = replies.values().iterator(); it.hasNext(); ) {
            if (now - it.next().deliveredNanos > expiresNanos) {
                it.remove();
            }
        }
    }

    /**
     * Event loop: whether the client may subscribe to {@code subject} in {@code queue} (may be
     * {@code null}), as nats-server's {@code canSubscribe}; a queue entry that matches the
     * subject decides for a queue subscription. Ringbus is stricter on one point: a plain deny
     * entry refuses a queue subscription whatever queue entries say.
     */
    boolean maySubscribe(String subject, String queue) {
        boolean allowed = true;
        if (subscribeAllow != null) {
            allowed = subscribeAllow.matchesPlain(subject);
            if (queue != null && subscribeAllow.hasQueueEntryFor(subject)) {
                allowed = subscribeAllow.matchesQueue(subject, queue);
            }
        }
        if (allowed) {
            allowed = !subscribeDeny.matchesPlain(subject) && (queue == null || !subscribeDeny.matchesQueue(subject, queue));
        }
        return allowed;
    }

    /** @return whether a subscription to {@code pattern} must filter its deliveries ({@link #deliverable}) */
    boolean filtersDeliveries(String pattern) {
        return (pattern.indexOf('*') >= 0 || pattern.indexOf('>') >= 0) && subscribeDeny.overlaps(pattern);
    }

    /** Any thread: whether a message on {@code subject} may be delivered (no subscribe deny entry names it). */
    boolean deliverable(String subject) {
        Boolean cached = denyCache.get(subject);
        if (cached == null) {
            cached = !subscribeDeny.matchesPlain(subject);
            if (denyCache.size() >= DENY_CACHE_SIZE) {
                denyCache.clear();
            }
            denyCache.put(subject, cached);
        }
        return cached;
    }
}
