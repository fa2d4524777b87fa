package io.ringbus.server.internal;

import io.ringbus.core.MessageFilter;
import io.ringbus.core.Subscription;
import io.ringbus.server.ServerConfig;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The content filters one connection holds ({@code $RB.API.FILTER}), and what they are charged:
 * filters set for a subject (and queue group), kept for the connection's SUBs to come whether it
 * ever subscribes or not, and filters attached to one subscription by sid. Each counts against
 * {@link ServerConfig#maxFilters()} and, by its policy text, against
 * {@link ServerConfig#maxFilterBytes()} and the server-wide {@link ServerConfig#filterBudget()}.
 * A request past a limit is refused with an error naming the limit, counted
 * ({@code filters_refused}), and changes nothing; the connection is kept. A subscription re-made
 * with a filter keeps its {@code UNSUB sid max} limit, which is therefore kept here too.
 *
 * <p>Threading: the connection's event loop only; the server-wide charge is atomic.
 */
final class ConnectionFilters {
    /** How the connection (re-)makes a subscription, as a SUB with that sid does. */
    @FunctionalInterface
    interface Subscriber {
        /** Makes the subscription {@code sid}, replacing one it had. */
        void subscribe(String sid, String subject, String queue, MessageFilter filter);
    }

    private final ServerContext server;
    /** The connection's subscriptions by sid (some may be inactive); read only. */
    private final Map<String, Subscription> subscriptions;
    private final Subscriber subscriber;
    /** {@code UNSUB sid max} limits, what is left of them for the subscription now under the sid. */
    private final Map<String, Long> deliveryLimits = new HashMap<>();
    /** Filters by subject (and queue group) key ({@link FilterRequest#key}), for SUBs to come. */
    private final Map<String, MessageFilter> bySubject = new HashMap<>();
    /** Filters attached by sid: the charge of a subscription's own filter, while it holds it. */
    private final Map<String, MessageFilter> bySid = new HashMap<>();
    /** Policy text held by both tables, charged to {@link ServerContext#filterBytes}. */
    private long bytes;

    ConnectionFilters(ServerContext server, Map<String, Subscription> subscriptions, Subscriber subscriber) {
        this.server = server;
        this.subscriptions = subscriptions;
        this.subscriber = subscriber;
    }

    /** @return the filter set for SUBs to {@code subject} in {@code queue}, or {@code null} */
    MessageFilter forSubscription(String subject, String queue) {
        return bySubject.get(FilterRequest.key(subject, queue));
    }

    /**
     * Applies a request: sets or removes a subject's filter (re-making the subscriptions it
     * applies to), or attaches one to a sid.
     *
     * @return the existing subscriptions re-made
     * @throws IllegalArgumentException naming what is wrong (no such sid), or the limit reached
     */
    int apply(FilterRequest request) {
        MessageFilter filter = request.filter();
        if (request.sid() != null) {
            String sid = request.sid();
            Subscription existing = subscriptions.get(sid);
            if (existing == null || !existing.isActive()) {
                throw new IllegalArgumentException("no subscription with sid \"" + sid + "\"");
            }
            charge(bySid, sid, filter);
            remake(sid, existing, filter);
            return 1;
        }
        charge(bySubject, FilterRequest.key(request.subject(), request.queue()), filter);
        int applied = 0;
        for (Map.Entry<String, Subscription> entry : List.copyOf(subscriptions.entrySet())) {
            Subscription existing = entry.getValue();
            if (existing.isActive() && existing.pattern().equals(request.subject())
                    && Objects.equals(existing.options().queueGroup(), request.queue())) {
                release(bySid, entry.getKey()); // the subject's filter replaces one attached by sid
                remake(entry.getKey(), existing, filter);
                applied++;
            }
        }
        return applied;
    }

    /** Re-makes {@code previous} (under {@code sid}) with {@code filter}, keeping its UNSUB limit. */
    private void remake(String sid, Subscription previous, MessageFilter filter) {
        subscriber.subscribe(sid, previous.pattern(), previous.options().queueGroup(), filter);
        Long limit = deliveryLimits.get(sid);
        if (limit != null) {
            // UNSUB sid max counts the messages delivered under the sid, before the re-make and after.
            long remaining = limit - previous.delivered();
            Subscription made = subscriptions.get(sid);
            if (remaining > 0) {
                made.unsubscribeAfter(remaining);
                deliveryLimits.put(sid, remaining);
            } else {
                made.unsubscribe();
                deliveryLimits.remove(sid);
            }
        }
    }

    /** {@code UNSUB sid max}: kept for a re-made subscription under the sid. */
    void unsubscribeAfter(String sid, long maxMessages) {
        deliveryLimits.put(sid, maxMessages);
    }

    /**
     * The subscription with {@code sid} was removed or re-made by a SUB: a filter attached to it and
     * its UNSUB limit are let go.
     */
    void sidReleased(String sid) {
        release(bySid, sid);
        deliveryLimits.remove(sid);
    }

    /** Subscriptions not in {@code sids} were removed (inactive ones, let go at max_subscriptions). */
    void retainSids(Set<String> sids) {
        deliveryLimits.keySet().retainAll(sids);
        bySid.keySet().stream().filter(sid -> !sids.contains(sid)).toList().forEach(this::sidReleased);
    }

    /** The connection closed: everything it held is let go. */
    void close() {
        server.filterBytes.addAndGet(-bytes);
        bytes = 0;
        bySubject.clear();
        bySid.clear();
        deliveryLimits.clear();
    }

    /** @return the filters held */
    int count() {
        return bySubject.size() + bySid.size();
    }

    /** @return the policy text held, in characters */
    long bytes() {
        return bytes;
    }

    /** Puts {@code filter} in {@code table} under {@code key} (removes the entry for {@code null}), within the limits. */
    private void charge(Map<String, MessageFilter> table, String key, MessageFilter filter) {
        if (filter == null) {
            release(table, key);
            return;
        }
        MessageFilter old = table.get(key);
        long delta = size(filter) - size(old);
        String refused = refusal(old == null ? 1 : 0, delta);
        if (refused != null) {
            // Subscriptions gone since (UNSUB after max, closed by the broker) no longer hold theirs.
            releaseStale();
            refused = refusal(old == null ? 1 : 0, delta);
        }
        if (refused != null) {
            server.counters.filtersRefused.increment();
            throw new IllegalArgumentException(refused);
        }
        table.put(key, filter);
        bytes += delta;
        server.filterBytes.addAndGet(delta);
    }

    /** @return why one more filter ({@code added}: 0 or 1) of {@code delta} more characters is refused, or {@code null} */
    private String refusal(int added, long delta) {
        ServerConfig config = server.config;
        if (count() + added > config.maxFilters()) {
            return "filter limit reached: this connection holds " + count() + " filters (max_filters="
                    + config.maxFilters() + ")";
        }
        if (bytes + delta > config.maxFilterBytes()) {
            return "filter limit reached: this connection's filters would hold " + (bytes + delta)
                    + " characters of policy (max_filter_bytes=" + config.maxFilterBytes() + ")";
        }
        if (delta > 0 && server.filterBytes.get() + delta > config.filterBudget()) {
            return "filter limit reached: the server's filters hold " + server.filterBytes.get()
                    + " characters of policy (the budget, a sixty-fourth of max_memory, is " + config.filterBudget() + ")";
        }
        return null;
    }

    private void release(Map<String, MessageFilter> table, String key) {
        MessageFilter old = table.remove(key);
        if (old != null) {
            bytes -= size(old);
            server.filterBytes.addAndGet(-size(old));
        }
    }

    private void releaseStale() {
        for (Iterator<Map.Entry<String, MessageFilter>> it = bySid.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, MessageFilter> entry = it.next();
            Subscription holder = subscriptions.get(entry.getKey());
            if (holder == null || !holder.isActive() || holder.options().filter() != entry.getValue()) {
                it.remove();
                bytes -= size(entry.getValue());
                server.filterBytes.addAndGet(-size(entry.getValue()));
            }
        }
    }

    /** @return what a filter is charged: its policy text (a compiled policy takes about three times that in heap) */
    private static long size(MessageFilter filter) {
        return filter == null ? 0 : filter.text().length();
    }
}
