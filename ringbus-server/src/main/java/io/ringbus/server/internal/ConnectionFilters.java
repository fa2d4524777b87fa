package io.ringbus.server.internal;

import io.ringbus.core.MessageFilter;
import io.ringbus.core.Subscription;
import io.ringbus.server.ServerConfig;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The content filters one connection holds ({@code $RB.API.FILTER}), and what they are charged:
 * filters set for a subject (and queue group), kept for the connection's SUBs to come whether it
 * ever subscribes or not, and filters attached to one subscription by sid. Each counts against
 * {@link ServerConfig#maxFilters()} and, by its policy text, against
 * {@link ServerConfig#maxFilterBytes()} and the server-wide {@link ServerConfig#filterBudget()}.
 * A request past a limit is refused with an error naming the limit, counted
 * ({@code filters_refused}), and changes nothing; the connection is kept.
 *
 * <p>Threading: the connection's event loop only; the server-wide charge is atomic.
 */
final class ConnectionFilters {
    /** What the connection does for its filters. */
    interface Subscriptions {
        /** @return the connection's subscriptions by sid (some may be inactive) */
        Map<String, Subscription> bySid();

        /**
         * Re-makes a subscription with a filter, as a SUB with the same sid re-makes it, keeping its
         * {@code UNSUB sid max} limit.
         */
        void remake(String sid, String subject, String queue, MessageFilter filter);
    }

    private final ServerContext server;
    /** Filters by subject (and queue group) key ({@link FilterRequest#key}), for SUBs to come. */
    private final Map<String, MessageFilter> bySubject = new HashMap<>();
    /** Filters attached by sid: the charge of a subscription's own filter, while it holds it. */
    private final Map<String, MessageFilter> bySid = new HashMap<>();
    /** Policy text held by both tables, charged to {@link ServerContext#filterBytes}. */
    private long bytes;

    ConnectionFilters(ServerContext server) {
        this.server = server;
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
    int apply(FilterRequest request, Subscriptions subscriptions) {
        MessageFilter filter = request.filter();
        if (request.sid() != null) {
            String sid = request.sid();
            Subscription existing = subscriptions.bySid().get(sid);
            if (existing == null || !existing.isActive()) {
                throw new IllegalArgumentException("no subscription with sid \"" + sid + "\"");
            }
            charge(bySid, sid, filter, subscriptions);
            subscriptions.remake(sid, existing.pattern(), existing.options().queueGroup(), filter);
            return 1;
        }
        charge(bySubject, FilterRequest.key(request.subject(), request.queue()), filter, subscriptions);
        int applied = 0;
        for (Map.Entry<String, Subscription> entry : List.copyOf(subscriptions.bySid().entrySet())) {
            Subscription existing = entry.getValue();
            if (existing.isActive() && existing.pattern().equals(request.subject())
                    && Objects.equals(existing.options().queueGroup(), request.queue())) {
                release(bySid, entry.getKey()); // the subject's filter replaces one attached by sid
                subscriptions.remake(entry.getKey(), request.subject(), request.queue(), filter);
                applied++;
            }
        }
        return applied;
    }

    /** The subscription with {@code sid} was removed or re-made by a SUB: a filter attached to it is let go. */
    void sidReleased(String sid) {
        release(bySid, sid);
    }

    /** The connection closed: everything it held is let go. */
    void close() {
        server.filterBytes.addAndGet(-bytes);
        bytes = 0;
        bySubject.clear();
        bySid.clear();
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
    private void charge(Map<String, MessageFilter> table, String key, MessageFilter filter, Subscriptions subscriptions) {
        if (filter == null) {
            release(table, key);
            return;
        }
        MessageFilter old = table.get(key);
        long delta = size(filter) - size(old);
        String refused = refusal(old == null ? 1 : 0, delta);
        if (refused != null) {
            // Subscriptions gone since (UNSUB after max, closed by the broker) no longer hold theirs.
            releaseStale(subscriptions);
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
                    + " characters of policy (the budget, a sixteenth of max_memory, is " + config.filterBudget() + ")";
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

    private void releaseStale(Subscriptions subscriptions) {
        for (Iterator<Map.Entry<String, MessageFilter>> it = bySid.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, MessageFilter> entry = it.next();
            Subscription holder = subscriptions.bySid().get(entry.getKey());
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
