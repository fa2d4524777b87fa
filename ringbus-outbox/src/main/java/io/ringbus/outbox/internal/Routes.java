package io.ringbus.outbox.internal;

import io.ringbus.core.Subject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A relay worker's subject to sink lookup: the first route whose pattern matches, cached per
 * subject (the cache is cleared when it reaches 10,000 subjects). One per worker thread.
 */
final class Routes {
    private static final int CACHE_LIMIT = 10_000;

    private final List<RelaySettings.Route> routes;
    private final List<SinkChannel> channels;
    private final Map<String, SinkChannel> cache = new HashMap<>();

    /**
     * @param routes   the relay's routes, in order
     * @param channels the sink channel of each route
     */
    Routes(List<RelaySettings.Route> routes, List<SinkChannel> channels) {
        this.routes = routes;
        this.channels = channels;
    }

    /** @return the channel of the first route matching {@code subject}, or {@code null} for none */
    SinkChannel route(String subject) {
        SinkChannel cached = cache.get(subject);
        if (cached != null || cache.containsKey(subject)) {
            return cached;
        }
        SinkChannel found = null;
        for (int i = 0; i < routes.size(); i++) {
            if (Subject.matches(routes.get(i).pattern(), subject)) {
                found = channels.get(i);
                break;
            }
        }
        if (cache.size() >= CACHE_LIMIT) {
            cache.clear();
        }
        cache.put(subject, found);
        return found;
    }
}
