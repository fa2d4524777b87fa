package io.ringbus.server.internal.monitor;

import io.ringbus.core.BlockedHandler;
import io.ringbus.core.BrokerStats;
import io.ringbus.core.Scope;
import io.ringbus.server.ServerStats;
import io.ringbus.server.internal.ConnectionInfo;
import io.ringbus.server.monitor.BlockedHandlerLog;
import io.ringbus.server.monitor.OutboxBacklog;
import io.ringbus.server.spi.DashboardCard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /dashz}: one compact document with everything the dashboard page draws, polled once a
 * second: totals, the per-second throughput of the last five minutes, the broker's ring and
 * drops, the busiest connections, the subscriptions with the most lag, recent watchdog warnings
 * the outbox backlog, the durable streams and consumers, the federation link and the extensions'
 * cards ({@link DashboardCard}, JetStream's streams and consumers for one). Lists are capped at
 * {@link #MAX_ROWS} rows. Not a stable API: the page and this class change together.
 */
final class Dashz {
    static final int MAX_ROWS = 50;
    static final int MAX_WARNINGS = 20;
    private static final Logger LOG = LoggerFactory.getLogger(Dashz.class);

    /** A network subscription's connection, to show its cid, sid and queued bytes. */
    private record Owner(long cid, String sid, long pendingBytes) {
    }

    private Dashz() {
    }

    static String write(MonitorView view) {
        var server = view.server;
        ServerStats stats = server.counters().snapshot();
        BrokerStats broker = server.broker().stats();
        List<ConnectionInfo> connections = server.connections(true);
        long now = System.currentTimeMillis();
        JsonResponse json = new JsonResponse().beginObject();
        json.name("server").beginObject()
                .field("name", server.config().serverName())
                .field("id", server.serverId())
                .field("version", io.ringbus.server.internal.ServerContext.VERSION)
                .field("port", server.boundPort())
                .field("auth_required", server.config().authRequired())
                .field("now", now)
                .field("uptime", NatsTime.uptime(now - server.startMillis()))
                .endObject();
        json.name("totals").beginObject()
                .field("in_msgs", stats.messagesIn())
                .field("out_msgs", stats.messagesOut())
                .field("in_bytes", server.counters().payloadBytesIn())
                .field("out_bytes", server.counters().payloadBytesOut())
                .field("connections", stats.connections())
                .field("total_connections", stats.totalConnections())
                .field("subscriptions", broker.subscriptions().size())
                .field("slow_consumers", stats.slowConsumers())
                .endObject();
        json.name("throughput");
        view.history.write(json);
        json.name("broker").beginObject();
        Varz.broker(json, broker);
        json.endObject();
        connections(json, connections, now);
        subscriptions(json, broker, connections);
        watchdog(json, view.blockedHandlers, broker.watchdogWarnings());
        outbox(json, view);
        Varz.storage(json, view, broker, Scope.ROOT); // the dashboard is ROOT's alone
        Varz.federation(json, broker.federation());
        cards(json, view);
        return json.endObject().toJson();
    }

    /**
     * The extensions' cards: title, note, columns, the first {@link #MAX_ROWS} rows and how many
     * there are; a card whose supplier throws shows the error instead.
     */
    private static void cards(JsonResponse json, MonitorView view) {
        json.name("cards").beginArray();
        for (Supplier<DashboardCard> supplier : view.extensions.cards()) {
            DashboardCard card;
            try {
                card = supplier.get();
            } catch (RuntimeException e) {
                LOG.debug("dashboard card failed", e);
                json.beginObject().field("title", "(extension card)").field("error", "unavailable: " + e).endObject();
                continue;
            }
            json.beginObject().field("title", card.title()).field("note", card.note()).field("empty", card.empty())
                    .field("total_rows", card.rows().size());
            json.name("columns").beginArray();
            card.columns().forEach(json::value);
            json.endArray().name("rows").beginArray();
            for (List<Object> row : card.rows().subList(0, Math.min(MAX_ROWS, card.rows().size()))) {
                json.beginArray();
                for (Object cell : row) {
                    switch (cell) {
                        case null -> json.value("");
                        case Long n -> json.value(n.longValue());
                        case Integer n -> json.value(n.longValue());
                        case Number n -> json.value(n.doubleValue());
                        default -> json.value(cell.toString());
                    }
                }
                json.endArray();
            }
            json.endArray().endObject();
        }
        json.endArray();
    }

    private static void connections(JsonResponse json, List<ConnectionInfo> connections, long now) {
        List<ConnectionInfo> list = new ArrayList<>(connections);
        list.sort(Comparator.comparingLong(ConnectionInfo::pendingBytes).reversed()
                .thenComparing(Comparator.comparingLong((ConnectionInfo c) -> c.inMsgs() + c.outMsgs()).reversed())
                .thenComparingLong(ConnectionInfo::cid));
        json.name("connections").beginArray();
        for (ConnectionInfo c : list.subList(0, Math.min(MAX_ROWS, list.size()))) {
            json.beginObject().field("cid", c.cid()).field("name", c.name() == null ? "" : c.name())
                    .field("ip", c.ip()).field("port", c.port()).field("subscriptions", c.subscriptionCount())
                    .field("pending_bytes", c.pendingBytes()).field("in_msgs", c.inMsgs())
                    .field("out_msgs", c.outMsgs()).field("idle", NatsTime.uptime(now - c.lastActivityMillis()))
                    .endObject();
        }
        json.endArray();
    }

    private static void subscriptions(JsonResponse json, BrokerStats broker, List<ConnectionInfo> connections) {
        Map<Long, Owner> owners = new HashMap<>();
        for (ConnectionInfo c : connections) {
            for (ConnectionInfo.SubscriptionInfo s : c.subscriptions()) {
                owners.put(s.id(), new Owner(c.cid(), s.sid(), c.pendingBytes()));
            }
        }
        List<BrokerStats.SubscriptionStats> list = new ArrayList<>(broker.subscriptions());
        Comparator<BrokerStats.SubscriptionStats> byLag = Comparator
                .comparingLong(BrokerStats.SubscriptionStats::pending)
                .thenComparingLong(s -> owners.containsKey(s.id()) ? owners.get(s.id()).pendingBytes() : 0)
                .thenComparingLong(BrokerStats.SubscriptionStats::delivered);
        list.sort(byLag.reversed().thenComparingLong(BrokerStats.SubscriptionStats::id));
        json.name("subscriptions").beginArray();
        for (BrokerStats.SubscriptionStats s : list.subList(0, Math.min(MAX_ROWS, list.size()))) {
            Owner owner = owners.get(s.id());
            json.beginObject().field("id", s.id()).field("subject", s.pattern())
                    .field("qgroup", s.queueGroup() == null ? "" : s.queueGroup())
                    .field("mode", s.mode().name()).field("scope", s.scope().name())
                    .field("cid", owner == null ? 0 : owner.cid()).field("sid", owner == null ? "" : owner.sid())
                    .field("pending", s.pending()).field("pending_bytes", owner == null ? 0 : owner.pendingBytes())
                    .field("delivered", s.delivered()).field("dropped", s.dropped())
                    .field("filter", s.filter()).field("filtered", s.filtered()).endObject();
        }
        json.endArray();
    }

    private static void watchdog(JsonResponse json, BlockedHandlerLog log, long total) {
        json.name("watchdog").beginObject().field("total", total).field("recorded", log != null);
        json.name("recent").beginArray();
        if (log != null) {
            List<BlockedHandlerLog.Entry> recent = log.recent();
            for (int i = recent.size() - 1; i >= 0 && i >= recent.size() - MAX_WARNINGS; i--) {
                BlockedHandlerLog.Entry entry = recent.get(i);
                BlockedHandler w = entry.warning();
                json.beginObject().field("time", entry.epochMillis()).field("thread", w.threadName())
                        .field("mode", w.mode().name()).field("subject", w.subject())
                        .field("subscription", w.subscription().pattern())
                        .field("elapsed_ms", w.elapsed().toMillis()).field("limit_ms", w.limit().toMillis())
                        .endObject();
            }
        }
        json.endArray().endObject();
    }

    private static void outbox(JsonResponse json, MonitorView view) {
        json.name("outbox").beginObject().field("attached", view.outboxBacklog != null);
        if (view.outboxBacklog != null) {
            try {
                OutboxBacklog backlog = view.outboxBacklog.get();
                json.field("name", backlog.name()).field("pending", backlog.pending()).field("dead", backlog.dead())
                        .field("in_flight", backlog.inFlight()).field("delivered", backlog.delivered());
            } catch (RuntimeException e) {
                LOG.debug("outbox backlog source failed", e);
                json.field("error", "unavailable: " + e);
            }
        }
        json.endObject();
    }
}
