package io.ringbus.server.internal.monitor;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.ringbus.core.Scope;
import io.ringbus.server.internal.ConnectionInfo;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code /connz}: the open connections, nats-server's fields and query parameters:
 * {@code subs=1} (subjects) or {@code subs=detail} (subject, qgroup, sid, msgs, cid),
 * {@code sort} (cid, start, subs, pending, msgs_to, msgs_from, bytes_to, bytes_from, last, idle,
 * uptime, rtt; descending except cid and start), {@code offset}, {@code limit} (default 1024),
 * {@code cid} (one connection), {@code auth=1} (adds {@code authorized_user}). A TLS client shows
 * {@code tls_version} and {@code tls_cipher_suite}. Closed connections are not kept
 * ({@code state=open} only).
 */
final class Connz {
    static final int DEFAULT_LIMIT = 1024;

    private static final Map<String, Comparator<ConnectionInfo>> SORTS = Map.ofEntries(
            Map.entry("cid", Comparator.comparingLong(ConnectionInfo::cid)),
            Map.entry("start", Comparator.comparingLong(ConnectionInfo::startMillis)),
            Map.entry("subs", Comparator.comparingInt(ConnectionInfo::subscriptionCount).reversed()),
            Map.entry("pending", Comparator.comparingLong(ConnectionInfo::pendingBytes).reversed()),
            Map.entry("msgs_to", Comparator.comparingLong(ConnectionInfo::outMsgs).reversed()),
            Map.entry("msgs_from", Comparator.comparingLong(ConnectionInfo::inMsgs).reversed()),
            Map.entry("bytes_to", Comparator.comparingLong(ConnectionInfo::outBytes).reversed()),
            Map.entry("bytes_from", Comparator.comparingLong(ConnectionInfo::inBytes).reversed()),
            Map.entry("last", Comparator.comparingLong(ConnectionInfo::lastActivityMillis).reversed()),
            Map.entry("idle", Comparator.comparingLong(ConnectionInfo::lastActivityMillis)),
            Map.entry("uptime", Comparator.comparingLong(ConnectionInfo::startMillis)),
            Map.entry("rtt", Comparator.comparingLong(ConnectionInfo::rttNanos).reversed()));

    private Connz() {
    }

    /** @throws IllegalArgumentException naming a bad parameter (answered with 400) */
    static String write(MonitorView view, QueryStringDecoder query, Scope viewer) {
        String subs = Query.string(query, "subs", "");
        boolean detail = subs.equals("detail");
        boolean withSubs = detail || Query.flag(query, "subs");
        boolean auth = Query.flag(query, "auth");
        String sort = Query.string(query, "sort", "cid");
        Comparator<ConnectionInfo> order = SORTS.get(sort);
        if (order == null) {
            throw new IllegalArgumentException("invalid sorting option: sort=" + sort);
        }
        int offset = Query.integer(query, "offset", 0);
        int limit = Query.integer(query, "limit", DEFAULT_LIMIT);
        long cid = Query.integer(query, "cid", 0);
        List<ConnectionInfo> all = view.server.connections(withSubs);
        // A credential sees only the clients of its scope and below: their names and subjects are data of that scope.
        all.removeIf(c -> (cid > 0 && c.cid() != cid) || !viewer.includes(c.scope()));
        all.sort(order.thenComparingLong(ConnectionInfo::cid));
        long now = System.currentTimeMillis();
        JsonResponse json = new JsonResponse().beginObject()
                .field("server_id", view.server.serverId())
                .field("now", NatsTime.instant(now))
                .field("num_connections", Math.max(0, Math.min(limit, all.size() - offset)))
                .field("total", all.size())
                .field("offset", offset)
                .field("limit", limit);
        json.name("connections").beginArray();
        for (int i = offset; i < all.size() && i < (long) offset + limit; i++) {
            connection(json, all.get(i), now, withSubs, detail, auth);
        }
        return json.endArray().endObject().toJson();
    }

    private static void connection(JsonResponse json, ConnectionInfo c, long now, boolean withSubs, boolean detail,
                                   boolean auth) {
        json.beginObject()
                .field("cid", c.cid())
                .field("kind", "Client")
                .field("type", "nats")
                .field("ip", c.ip())
                .field("port", c.port())
                .field("start", NatsTime.instant(c.startMillis()))
                .field("last_activity", NatsTime.instant(c.lastActivityMillis()))
                .field("rtt", NatsTime.goDuration(c.rttNanos()))
                .field("uptime", NatsTime.uptime(now - c.startMillis()))
                .field("idle", NatsTime.uptime(now - c.lastActivityMillis()))
                .field("pending_bytes", c.pendingBytes())
                .field("in_msgs", c.inMsgs())
                .field("out_msgs", c.outMsgs())
                .field("in_bytes", c.inBytes())
                .field("out_bytes", c.outBytes())
                .field("subscriptions", c.subscriptionCount());
        optional(json, "name", c.name());
        optional(json, "lang", c.lang());
        optional(json, "version", c.version());
        optional(json, "tls_version", c.tlsVersion());
        optional(json, "tls_cipher_suite", c.tlsCipherSuite());
        if (auth) {
            optional(json, "authorized_user", c.authorizedUser());
        }
        if (withSubs && !c.subscriptions().isEmpty()) {
            json.name(detail ? "subscriptions_list_detail" : "subscriptions_list").beginArray();
            for (ConnectionInfo.SubscriptionInfo s : c.subscriptions()) {
                if (detail) {
                    Subsz.subscription(json, s);
                } else {
                    json.value(s.subject());
                }
            }
            json.endArray();
        }
        json.endObject();
    }

    /** nats-server leaves empty strings out (Go {@code omitempty}). */
    private static void optional(JsonResponse json, String name, String value) {
        if (value != null && !value.isEmpty()) {
            json.field(name, value);
        }
    }
}
