package io.ringbus.server.internal.monitor;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringbus.server.internal.ServerContext;
import io.ringbus.server.monitor.BlockedHandlerLog;
import io.ringbus.server.monitor.OutboxBacklog;

import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Everything the endpoints read: the server, the sources the embedder gave, the throughput
 * history and the request counts. The mutable parts are touched only on the monitor's single
 * event loop.
 */
final class MonitorView {
    final ServerContext server;
    final PrometheusMeterRegistry registry;
    /** {@code null} when the embedder registered none. */
    final BlockedHandlerLog blockedHandlers;
    /** {@code null} when no outbox is attached. */
    final Supplier<OutboxBacklog> outboxBacklog;
    /** {@code null} when the embedder gave no store. */
    final Storage storage;
    final List<StoredStream> streams;
    /** Paths, {@code /varz} objects and dashboard cards the extensions add. */
    final MonitorExtensions extensions;
    final ThroughputHistory history = new ThroughputHistory();
    /** Requests served per endpoint (NATS {@code http_req_stats}); monitor loop only. */
    final Map<String, Long> requestCounts = new LinkedHashMap<>();
    final long configLoadMillis = System.currentTimeMillis();
    volatile int httpPort;
    volatile int httpsPort;

    MonitorView(ServerContext server, PrometheusMeterRegistry registry, BlockedHandlerLog blockedHandlers,
                Supplier<OutboxBacklog> outboxBacklog, Storage storage, List<StoredStream> streams) {
        this.server = server;
        this.extensions = server.monitorExtensions();
        this.registry = registry;
        this.blockedHandlers = blockedHandlers;
        this.outboxBacklog = outboxBacklog;
        this.storage = storage;
        this.streams = streams;
    }

    /** Monitor loop: one sample of the server's counters into the history. */
    void sample() {
        var counters = server.counters();
        var stats = counters.snapshot();
        history.tick(System.nanoTime(), System.currentTimeMillis(), stats.messagesIn(), stats.messagesOut(),
                counters.payloadBytesIn(), counters.payloadBytesOut());
    }
}
