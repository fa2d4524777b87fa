package io.ringbus.server.monitor;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;

import java.util.List;
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
 *   <li>storage: the broker's {@link Storage} and the durable streams to show in {@code /varz}
 *       ({@code ringbus.storage}: the store's {@link Storage#describe()} line and each stream's
 *       {@link StoredStream#info()}, read when {@code /varz} is asked). Durable consumers are shown
 *       from the broker's statistics with or without it.</li>
 * </ul>
 */
public final class MonitorSources {
    private static final MonitorSources NONE = builder().build();

    private final PrometheusMeterRegistry meterRegistry;
    private final BlockedHandlerLog blockedHandlers;
    private final Supplier<OutboxBacklog> outboxBacklog;
    private final Storage storage;
    private final List<StoredStream> streams;

    private MonitorSources(Builder b) {
        this.meterRegistry = b.meterRegistry;
        this.blockedHandlers = b.blockedHandlers;
        this.outboxBacklog = b.outboxBacklog;
        this.storage = b.storage;
        this.streams = b.streams;
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

    /** @return the broker's store, if one was given */
    public Optional<Storage> storage() {
        return Optional.ofNullable(storage);
    }

    /** @return the durable streams to show; empty when no storage was given */
    public List<StoredStream> streams() {
        return streams;
    }

    /** Collects the sources; each setter rejects {@code null}. */
    public static final class Builder {
        private PrometheusMeterRegistry meterRegistry;
        private BlockedHandlerLog blockedHandlers;
        private Supplier<OutboxBacklog> outboxBacklog;
        private Storage storage;
        private List<StoredStream> streams = List.of();

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

        /**
         * @param store   the broker's store (the one given to {@code BrokerBuilder.storage})
         * @param durable the streams to show, e.g. those {@code Broker.registerStream} returned
         * @return this
         */
        public Builder storage(Storage store, List<StoredStream> durable) {
            this.storage = require(store, "storage");
            this.streams = List.copyOf(require(durable, "streams"));
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
