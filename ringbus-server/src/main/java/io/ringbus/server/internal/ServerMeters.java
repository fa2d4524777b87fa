package io.ringbus.server.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.ringbus.server.AuthFailure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A server's Micrometer meters (listed in {@code docs/metrics.md}), tagged {@code server} with
 * the server name. Each reads {@link ServerCounters} when scraped: nothing is added to the I/O
 * path. Byte counters carry no base unit, so that Prometheus names them
 * {@code ringbus_server_bytes_in_total}, as the dashboards expect.
 */
public final class ServerMeters {
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();

    /**
     * Registers the meters.
     *
     * @param registry   where to register them
     * @param serverName the {@code server} tag
     * @param counters   the server's counters
     */
    public ServerMeters(MeterRegistry registry, String serverName, ServerCounters counters) {
        this.registry = registry;
        Tags tags = Tags.of("server", serverName);
        meters.add(Gauge.builder("ringbus.server.connections", counters, c -> c.connections.get())
                .description("clients connected now").tags(tags).register(registry));
        meters.add(Gauge.builder("ringbus.server.subscriptions", counters, ServerCounters::activeSubscriptions)
                .description("active subscriptions of connected clients").tags(tags).register(registry));
        counter("ringbus.server.connections.accepted", "clients accepted", counters.totalConnections, tags);
        counter("ringbus.server.bytes.in", "bytes read from clients", counters.bytesIn, tags);
        counter("ringbus.server.bytes.out", "MSG/HMSG bytes written to clients", counters.bytesOut, tags);
        counter("ringbus.server.messages.in", "PUB/HPUB accepted into the broker", counters.messagesIn, tags);
        counter("ringbus.server.messages.out", "MSG/HMSG written to clients", counters.messagesOut, tags);
        counter("ringbus.server.slow.consumers", "clients closed as slow consumers", counters.slowConsumers, tags);
        for (AuthFailure reason : AuthFailure.values()) {
            meters.add(FunctionCounter.builder("ringbus.server.auth.failures", counters, c -> c.authFailures(reason))
                    .description("clients refused authentication, by reason").tags(tags.and("reason", reason.tag()))
                    .register(registry));
        }
        String checks = "costly credential checks (bcrypt), by outcome";
        counter("ringbus.server.auth.checks", checks, counters.authChecksRun, tags.and("outcome", "run"));
        counter("ringbus.server.auth.checks", checks, counters.authChecksRefused, tags.and("outcome", "refused"));
        counter("ringbus.server.auth.checks", checks, counters.authChecksExpired, tags.and("outcome", "expired"));
        counter("ringbus.server.auth.checks", checks, counters.authChecksAbandoned, tags.and("outcome", "abandoned"));
        counter("ringbus.server.permission.violations", "PUB/SUB refused by the client's scope",
                counters.permissionViolations, tags);
        String tls = "TLS handshakes failed, by reason";
        counter("ringbus.server.tls.failures", tls, counters.tlsHandshakeFailures, tags.and("reason", "handshake"));
        counter("ringbus.server.tls.failures", tls, counters.tlsHandshakeTimeouts, tags.and("reason", "timeout"));
        counter("ringbus.server.tls.failures", tls, counters.tlsPlaintextClients, tags.and("reason", "plaintext"));
    }

    private void counter(String name, String description, LongAdder adder, Tags tags) {
        meters.add(FunctionCounter.builder(name, adder, LongAdder::sum).description(description).tags(tags)
                .register(registry));
    }

    /** Removes the meters from the registry (the server closed). */
    public void close() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
        meters.clear();
    }
}
