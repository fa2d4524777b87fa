package io.ringbus.server.internal.monitor;

import io.ringbus.core.BrokerStats;
import io.ringbus.core.ConsumerStats;
import io.ringbus.core.FederationStats;
import io.ringbus.core.Scope;
import io.ringbus.core.DropReason;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamInfo;
import io.ringbus.server.AuthFailure;
import io.ringbus.server.ServerConfig;
import io.ringbus.server.ServerStats;
import io.ringbus.server.internal.ServerContext;
import io.ringbus.server.internal.ServerCounters;
import io.ringbus.server.spi.VarzSection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code /varz}: the server's settings and totals with nats-server's field names (those that
 * mean something here; routes, gateways and leaf nodes are empty, and JetStream unless an
 * extension fills it, {@link MonitorExtensions#VARZ_PLACEHOLDERS}), and the broker's
 * own figures under {@code "ringbus"}, which NATS tooling ignores; its {@code "storage"} object
 * shows the store, the durable streams and the durable consumers, filtered by the viewer's scope
 * (see {@link #storage}).
 *
 * <p>{@code in_bytes}/{@code out_bytes} count payload and header bytes, as nats-server does, not
 * bytes on the wire (those are {@code ringbus.wire_in_bytes}/{@code wire_out_bytes}).
 * {@code subscriptions} counts every active broker subscription, in-process ones included.
 */
final class Varz {
    private static final Logger LOG = LoggerFactory.getLogger(Varz.class);
    private static final Path STATM = Path.of("/proc/self/statm");
    private static final long PAGE_SIZE = 4096;

    private Varz() {
    }

    static String write(MonitorView view, Scope viewer) {
        ServerContext server = view.server;
        ServerConfig config = server.config();
        ServerStats stats = server.counters().snapshot();
        BrokerStats broker = server.broker().stats();
        long now = System.currentTimeMillis();
        int cores = Runtime.getRuntime().availableProcessors();
        JsonResponse json = new JsonResponse().beginObject()
                .field("server_id", server.serverId())
                .field("server_name", config.serverName())
                .field("version", ServerContext.VERSION)
                .field("proto", 1)
                .field("host", config.host())
                .field("port", server.boundPort())
                .field("auth_required", config.authRequired())
                .field("max_connections", config.maxConnections())
                .field("ping_interval", config.pingInterval().toNanos())
                .field("ping_max", config.maxPingsOut())
                .field("http_host", config.monitorHost())
                .field("http_port", view.httpPort)
                .field("http_base_path", "")
                .field("https_port", view.httpsPort)
                .field("auth_timeout", config.authTimeout().toMillis() / 1000.0)
                .field("max_control_line", ServerConfig.MAX_CONTROL_LINE)
                .field("max_payload", config.maxPayload())
                .field("max_pending", config.maxPending());
        for (String placeholder : MonitorExtensions.VARZ_PLACEHOLDERS) {
            json.name(placeholder);
            extensionSection(json, view.extensions.varz(placeholder), placeholder, viewer);
        }
        if (config.tlsEnabled()) {
            // nats-server omits tls_required and tls_verify when false
            json.field("tls_required", true);
            if (config.tlsVerify()) {
                json.field("tls_verify", true);
            }
            json.field("tls_timeout", config.tlsTimeout().toMillis() / 1000.0);
        } else {
            json.field("tls_timeout", 0);
        }
        json.field("write_deadline", config.writeDeadline().toNanos())
                .field("start", NatsTime.instant(server.startMillis()))
                .field("now", NatsTime.instant(now))
                .field("uptime", NatsTime.uptime(now - server.startMillis()))
                .field("mem", residentBytes())
                .field("cores", cores)
                .field("cpu", cpuPercent(cores))
                .field("connections", stats.connections())
                .field("total_connections", stats.totalConnections())
                .field("routes", 0)
                .field("remotes", 0)
                .field("leafnodes", 0)
                .field("in_msgs", stats.messagesIn())
                .field("out_msgs", stats.messagesOut())
                .field("in_bytes", server.counters().payloadBytesIn())
                .field("out_bytes", server.counters().payloadBytesOut())
                .field("slow_consumers", stats.slowConsumers())
                .field("subscriptions", broker.subscriptions().size());
        json.name("http_req_stats").beginObject();
        for (Map.Entry<String, Long> entry : view.requestCounts.entrySet()) {
            json.field(entry.getKey(), entry.getValue());
        }
        json.endObject()
                .field("config_load_time", NatsTime.instant(view.configLoadMillis));
        json.name("ringbus").beginObject()
                .field("java", Runtime.version().toString())
                .field("wire_in_bytes", stats.bytesIn())
                .field("wire_out_bytes", stats.bytesOut())
                .field("rejected_connections", stats.rejectedConnections())
                .field("auth_failures", stats.authFailures())
                .field("max_memory", config.maxMemory())
                .field("outbound_buffered", server.outboundBuffered())
                .field("max_input_buffer", config.maxInputBuffer())
                .field("effective_max_pending", config.effectiveMaxPending())
                .field("max_filters", config.maxFilters())
                .field("max_filter_bytes", config.maxFilterBytes())
                .field("filter_budget", config.filterBudget())
                .field("filter_bytes", server.filterBytes())
                .field("max_subscription_memory", config.maxSubscriptionMemory())
                .field("subscription_memory", server.subscriptionBytes())
                .field("tls_provider", server.tls() == null ? null : server.tls().provider());
        json.name("auth_failures_by_reason").beginObject();
        for (Map.Entry<AuthFailure, Long> reason : stats.authFailuresByReason().entrySet()) {
            json.field(reason.getKey().tag(), reason.getValue());
        }
        json.endObject();
        authChecks(json, server);
        json.field("tls_handshake_failures", stats.tlsHandshakeFailures())
                .field("tls_handshake_timeouts", stats.tlsHandshakeTimeouts())
                .field("tls_plaintext_clients", stats.tlsPlaintextClients())
                .field("permission_violations", stats.permissionViolations())
                .field("permission_filtered", server.counters().permissionFiltered())
                .field("filters_refused", server.counters().filtersRefused())
                .field("subscriptions_refused", server.counters().subscriptionsRefused())
                .field("protocol_errors", stats.protocolErrors())
                .field("publish_pauses", stats.publishPauses())
                .field("stale_connections", stats.staleConnections())
                .field("outbound_stalls", stats.outboundStalls());
        broker(json, broker);
        storage(json, view, broker, viewer);
        federation(json, broker.federation());
        return json.endObject().endObject().toJson();
    }

    /**
     * Writes an extension's object, or {@code {}} without one. It is written into a document of its
     * own first, so that one that throws leaves {@code {}} and the rest of {@code /varz} whole.
     */
    private static void extensionSection(JsonResponse json, VarzSection section, String field, Scope viewer) {
        if (section != null) {
            try {
                JsonResponse own = new JsonResponse();
                section.write(own.forExtension(), viewer);
                json.rawValue(own.toJson());
                return;
            } catch (IOException | RuntimeException e) {
                LOG.warn("monitor: /varz {} failed: {}", field, e.toString(), e);
            }
        }
        json.beginObject().endObject();
    }

    /** {@code ringbus.auth_checks}: the costly-check pool's bounds, what waits now, and every check's outcome. */
    static void authChecks(JsonResponse json, ServerContext server) {
        ServerCounters counters = server.counters();
        json.name("auth_checks").beginObject()
                .field("threads", server.checks().threads())
                .field("per_source", server.checks().perSource())
                .field("timeout", server.config().authenticatorTimeout().toNanos() / 1e9)
                .field("queued", server.checks().queued())
                .field("suspect_sources", server.checks().suspects())
                .field("run", counters.authChecksRun())
                .field("refused", counters.authChecksRefused())
                .field("expired", counters.authChecksExpired())
                .field("abandoned", counters.authChecksAbandoned())
                .endObject();
    }

    /** {@code ringbus.federation}: the link's state and counters, {@code null} without a link. */
    static void federation(JsonResponse json, FederationStats link) {
        if (link == null) {
            json.field("federation", (String) null);
            return;
        }
        json.name("federation").beginObject().field("state", link.state()).field("server", link.server())
                .field("sent", link.sent()).field("received", link.received()).field("not_sent", link.notSent())
                .field("refused", link.refused()).field("dropped", link.dropped()).field("pending", link.pending()).field("interest", link.interest())
                .field("reconnects", link.reconnects()).endObject();
    }

    /**
     * {@code ringbus.storage}: the store ({@code null} when the embedder gave none), the network
     * publishes to durable subjects, each durable stream's contents and each durable consumer.
     *
     * <p>Filtered by the viewer's scope, as {@code /connz}: a stream (and its consumers) is listed
     * only when the viewer's scope includes the scope the stream was registered with (a stream the
     * broker does not know only to ROOT); the store's description (its directory) only to ROOT.
     * The totals count every stream.
     */
    static void storage(JsonResponse json, MonitorView view, BrokerStats broker, Scope viewer) {
        ServerCounters counters = view.server.counters();
        json.name("storage").beginObject()
                .field("store", view.storage == null || viewer != Scope.ROOT ? null : view.storage.describe())
                .field("durable_publishes", counters.durablePublishes())
                .field("acks_pending", counters.durableAcksPending())
                .field("store_failures", counters.durableFailures())
                .field("refused", counters.durableRefused());
        json.name("streams").beginArray();
        for (StoredStream stream : view.streams) {
            if (!visible(view, stream.config().name(), viewer)) {
                continue;
            }
            json.beginObject().field("name", stream.config().name()).field("subjects",
                    String.join(", ", stream.config().subjects()));
            try {
                StreamInfo info = stream.info();
                json.field("messages", info.messages()).field("bytes", info.bytes())
                        .field("first_seq", info.firstSequence()).field("last_seq", info.lastSequence())
                        .field("duplicate_ids", info.duplicateIds()).field("duplicate_bytes", info.duplicateBytes())
                        .field("duplicates_forgotten", info.duplicatesForgotten())
                        .field("key_dedup_keys", info.keyedIds().keys())
                        .field("key_dedup_bytes", info.keyedIds().bytes())
                        .field("key_dedup_evicted", info.keyedIds().evicted())
                        .field("key_dedup_duplicates", info.keyedIds().duplicates());
            } catch (RuntimeException closedOrFailed) {
                json.field("error", String.valueOf(closedOrFailed.getMessage()));
            }
            json.endObject();
        }
        json.endArray();
        json.name("consumers").beginArray();
        for (ConsumerStats consumer : broker.consumers()) {
            if (!visible(view, consumer.stream(), viewer)) {
                continue;
            }
            json.beginObject().field("stream", consumer.stream()).field("name", consumer.name())
                    .field("ack_floor", consumer.ackFloor()).field("pending", consumer.pending())
                    .field("ack_pending", consumer.ackPending()).field("redelivered", consumer.redelivered())
                    .field("delivered", consumer.delivered()).endObject();
        }
        json.endArray().endObject();
    }

    /** @return whether a viewer of {@code viewer}'s scope may see the stream named {@code stream} */
    private static boolean visible(MonitorView view, String stream, Scope viewer) {
        return viewer == Scope.ROOT || view.server.broker().streamScope(stream).map(viewer::includes).orElse(false);
    }

    /** The broker's counters, as fields of the current object; shared with the dashboard. */
    static void broker(JsonResponse json, BrokerStats broker) {
        json.field("ring_size", broker.ringSize())
                .field("ring_remaining", broker.ringRemainingCapacity())
                .field("published", broker.published())
                .field("rejected", broker.rejected())
                .field("publish_waits", broker.publishWaits())
                .field("delivered", broker.delivered())
                .field("handler_errors", broker.handlerErrors())
                .field("watchdog_warnings", broker.watchdogWarnings())
                .field("filter_evaluations", broker.filterEvaluations())
                .field("dropped_total", broker.droppedTotal());
        json.name("dropped").beginObject();
        for (DropReason reason : DropReason.values()) {
            json.field(reason.name(), broker.dropped().getOrDefault(reason, 0L));
        }
        json.endObject();
    }

    /** Resident set size on Linux (what nats-server reports); the heap in use elsewhere. */
    private static long residentBytes() {
        try {
            String[] fields = Files.readString(STATM).trim().split("\\s+");
            return Long.parseLong(fields[1]) * PAGE_SIZE;
        } catch (IOException | RuntimeException notLinux) {
            Runtime rt = Runtime.getRuntime();
            return rt.totalMemory() - rt.freeMemory();
        }
    }

    /** Process CPU use in percent of one core, as nats-server reports it (may exceed 100). */
    private static double cpuPercent(int cores) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            double load = sun.getProcessCpuLoad();
            if (load >= 0) {
                return Math.round(load * cores * 1000) / 10.0;
            }
        }
        return 0;
    }
}
