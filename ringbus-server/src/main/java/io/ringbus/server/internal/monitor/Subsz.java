package io.ringbus.server.internal.monitor;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.ringbus.core.Scope;
import io.ringbus.core.BrokerStats;
import io.ringbus.server.internal.ConnectionInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /subsz}: subscription totals with nats-server's field names; with {@code subs=1} the
 * network subscriptions ({@code subscriptions_list}, paged by {@code offset} and {@code limit}).
 *
 * <p>What the numbers mean here: {@code num_subscriptions} counts every active broker
 * subscription, in-process ones included; {@code num_inserts}/{@code num_removes} count network
 * SUBs and their removals; {@code num_matches} counts messages published by network clients
 * (one subject match each); {@code avg_fanout} is deliveries per published message over the
 * broker's life. The broker's route cache is not exposed: {@code num_cache},
 * {@code cache_hit_rate} and {@code max_fanout} are 0. Under {@code "ringbus"}: the broker's
 * subscriptions grouped by pattern, with what is pending (lag) for each, most pending first.
 */
final class Subsz {
    /** Patterns listed under {@code ringbus.patterns}. */
    static final int MAX_PATTERNS = 100;

    private Subsz() {
    }

    /** @throws IllegalArgumentException naming a bad parameter (answered with 400) */
    static String write(MonitorView view, QueryStringDecoder query, Scope viewer) {
        boolean withSubs = Query.flag(query, "subs");
        int offset = Query.integer(query, "offset", 0);
        int limit = Query.integer(query, "limit", Connz.DEFAULT_LIMIT);
        BrokerStats broker = view.server.broker().stats();
        long published = broker.published();
        JsonResponse json = new JsonResponse().beginObject()
                .field("server_id", view.server.serverId())
                .field("now", NatsTime.instant(System.currentTimeMillis()))
                .field("num_subscriptions", broker.subscriptions().size())
                .field("num_cache", 0)
                .field("num_inserts", view.server.counters().subscribes())
                .field("num_removes", view.server.counters().unsubscribes())
                .field("num_matches", view.server.counters().snapshot().messagesIn())
                .field("cache_hit_rate", 0.0)
                .field("max_fanout", 0)
                .field("avg_fanout", published == 0 ? 0.0 : (double) broker.delivered() / published);
        if (withSubs) {
            List<ConnectionInfo.SubscriptionInfo> subs = new ArrayList<>();
            for (ConnectionInfo connection : view.server.connections(true)) {
                if (viewer.includes(connection.scope())) {
                    subs.addAll(connection.subscriptions());
                }
            }
            subs.sort(Comparator.comparingLong(ConnectionInfo.SubscriptionInfo::cid)
                    .thenComparingLong(ConnectionInfo.SubscriptionInfo::id));
            json.field("total", subs.size()).field("offset", offset).field("limit", limit);
            json.name("subscriptions_list").beginArray();
            for (int i = offset; i < subs.size() && i < (long) offset + limit; i++) {
                subscription(json, subs.get(i));
            }
            json.endArray();
        }
        json.name("ringbus").beginObject().name("patterns").beginArray();
        for (PatternTotals p : patterns(broker, MAX_PATTERNS, viewer)) {
            json.beginObject().field("pattern", p.pattern).field("subscriptions", p.subscriptions)
                    .field("pending", p.pending).field("delivered", p.delivered).field("dropped", p.dropped)
                    .field("filtered", p.filtered).endObject();
        }
        return json.endArray().endObject().endObject().toJson();
    }

    /** One subscription as nats-server lists it (qgroup only when there is one). */
    static void subscription(JsonResponse json, ConnectionInfo.SubscriptionInfo s) {
        json.beginObject().field("subject", s.subject());
        if (s.queueGroup() != null) {
            json.field("qgroup", s.queueGroup());
        }
        json.field("sid", s.sid()).field("msgs", s.msgs()).field("cid", s.cid());
        if (s.filter() != null) {
            // ringbus only: the filter the client attached ($RB.API.FILTER) and what it rejected
            json.field("filter", s.filter()).field("filtered", s.filtered());
        }
        json.endObject();
    }

    /** The broker's subscriptions of one pattern, summed. */
    static final class PatternTotals {
        final String pattern;
        long subscriptions;
        long pending;
        long delivered;
        long dropped;
        long filtered;

        PatternTotals(String pattern) {
            this.pattern = pattern;
        }
    }

    /** @return at most {@code max} patterns, most pending first, then most delivered */
    static List<PatternTotals> patterns(BrokerStats broker, int max, Scope viewer) {
        Map<String, PatternTotals> byPattern = new HashMap<>();
        for (BrokerStats.SubscriptionStats s : broker.subscriptions()) {
            if (!viewer.includes(s.scope())) {
                continue;
            }
            PatternTotals totals = byPattern.computeIfAbsent(s.pattern(), PatternTotals::new);
            totals.subscriptions++;
            totals.pending += s.pending();
            totals.delivered += s.delivered();
            totals.dropped += s.dropped();
            totals.filtered += s.filtered();
        }
        List<PatternTotals> list = new ArrayList<>(byPattern.values());
        list.sort(Comparator.comparingLong((PatternTotals p) -> p.pending).reversed()
                .thenComparing(Comparator.comparingLong((PatternTotals p) -> p.delivered).reversed())
                .thenComparing(p -> p.pattern));
        return list.size() > max ? list.subList(0, max) : list;
    }
}
