package io.ringbus.server.monitor;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the monitoring port shows besides the server's own figures: the meter registry that
 * {@code /metrics} scrapes, the recent watchdog warnings, and an outbox's backlog. Everything is
 * optional; pass it to {@code RingbusServer.start(broker, config, sources)}. Immutable.
 *
 * <ul>
 *   <li>meter registry: without one, the server creates {@link #jvmMeterRegistry()}. Pass the
 *       same registry to whatever else should appear in {@code /metrics} (the broker, an
 *       outbox).</li>
 *   <li>blocked handlers: a {@link BlockedHandlerLog} registered as the broker's
 *       {@code blockedHandlerListener}; without one the dashboard shows only the count.</li>
 *   <li>outbox backlog: a supplier called on the monitor's thread once per dashboard refresh;
 *       it must be quick and must not throw (a failure is shown as "unavailable"). Without one
 *       the dashboard says "no outbox attached".</li>
 * </ul>
 */
public final class MonitorSources {
    private static final MonitorSources NONE = builder().build();

    private final PrometheusMeterRegistry meterRegistry;
    private final BlockedHandlerLog blockedHandlers;
    private final Supplier<OutboxBacklog> outboxBacklog;

    private MonitorSources(Builder b) {
        this.meterRegistry = b.meterRegistry;
        this.blockedHandlers = b.blockedHandlers;
        this.outboxBacklog = b.outboxBacklog;
    }

    /** @return a builder with nothing set */
    public static Builder builder() {
        return new Builder();
    }

    /** @return sources with nothing set: a registry of JVM meters is created when monitoring starts */
    public static MonitorSources none() {
        return NONE;
    }

    /**
     * A Prometheus registry with the JVM and process basics bound: memory, threads, processor
     * (CPU use, load) and uptime.
     *
     * @return a new registry
     */
    public static PrometheusMeterRegistry jvmMeterRegistry() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        return registry;
    }

    /** @return the registry {@code /metrics} scrapes, if one was given */
    public Optional<PrometheusMeterRegistry> meterRegistry() {
        return Optional.ofNullable(meterRegistry);
    }

    /** @return the watchdog warnings log, if one was given */
    public Optional<BlockedHandlerLog> blockedHandlers() {
        return Optional.ofNullable(blockedHandlers);
    }

    /** @return the outbox backlog source, if one was given */
    public Optional<Supplier<OutboxBacklog>> outboxBacklog() {
        return Optional.ofNullable(outboxBacklog);
    }

    /** Collects the sources; each setter rejects {@code null}. */
    public static final class Builder {
        private PrometheusMeterRegistry meterRegistry;
        private BlockedHandlerLog blockedHandlers;
        private Supplier<OutboxBacklog> outboxBacklog;

        private Builder() {
        }

        /** @param registry the registry {@code /metrics} scrapes @return this */
        public Builder meterRegistry(PrometheusMeterRegistry registry) {
            this.meterRegistry = require(registry, "meterRegistry");
            return this;
        }

        /** @param log the broker's watchdog warnings (see {@link BlockedHandlerLog}) @return this */
        public Builder blockedHandlers(BlockedHandlerLog log) {
            this.blockedHandlers = require(log, "blockedHandlers");
            return this;
        }

        /** @param backlog reads an outbox relay's backlog (see {@link OutboxBacklog}) @return this */
        public Builder outboxBacklog(Supplier<OutboxBacklog> backlog) {
            this.outboxBacklog = require(backlog, "outboxBacklog");
            return this;
        }

        /** @return the sources */
        public MonitorSources build() {
            return new MonitorSources(this);
        }

        private static <T> T require(T value, String what) {
            if (value == null) {
                throw new IllegalArgumentException(what + " must not be null");
            }
            return value;
        }
    }
}
