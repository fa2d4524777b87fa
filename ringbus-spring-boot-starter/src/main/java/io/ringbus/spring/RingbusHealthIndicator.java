package io.ringbus.spring;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerStats;
import io.ringbus.server.ServerStats;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code ringbus} health component: DOWN when the broker is closed or the embedded server
 * is not serving; otherwise UP, with the ring's size and remaining capacity, drops, handler
 * errors and watchdog (blocked handler) warnings, in total and since the previous check, and the
 * server's port and connections. A blocked handler or a full ring is reported, not turned into
 * DOWN: a restart would not make a slow consumer faster.
 *
 * <p>Thread-safe; reads the broker's counters without stopping it.
 */
public class RingbusHealthIndicator implements HealthIndicator {

    private final Broker broker;
    private final Supplier<EmbeddedRingbusServer> server;
    private final AtomicLong lastWarnings = new AtomicLong();

    /**
     * @param broker the broker
     * @param server the embedded server, or a supplier of {@code null} without one
     */
    public RingbusHealthIndicator(Broker broker, Supplier<EmbeddedRingbusServer> server) {
        this.broker = broker;
        this.server = server;
    }

    /** @return the broker's (and the server's) health */
    @Override
    public Health health() {
        Health.Builder health = broker.isClosed() ? Health.down().withDetail("closed", true) : Health.up();
        BrokerStats stats = broker.stats();
        long warnings = stats.watchdogWarnings();
        health.withDetail("ringSize", stats.ringSize())
                .withDetail("ringRemainingCapacity", stats.ringRemainingCapacity())
                .withDetail("published", stats.published())
                .withDetail("rejected", stats.rejected())
                .withDetail("dropped", stats.droppedTotal())
                .withDetail("handlerErrors", stats.handlerErrors())
                .withDetail("subscriptions", stats.subscriptions().size())
                .withDetail("watchdogWarnings", warnings)
                .withDetail("watchdogWarningsSinceLastCheck", warnings - lastWarnings.getAndSet(warnings));
        EmbeddedRingbusServer embedded = server.get();
        if (embedded != null) {
            if (embedded.isRunning() && embedded.server() != null) {
                ServerStats s = embedded.server().stats();
                health.withDetail("server.port", embedded.port()).withDetail("server.connections", s.connections())
                        .withDetail("server.slowConsumers", s.slowConsumers());
            } else {
                health.down().withDetail("server", "not serving");
            }
        }
        return health.build();
    }
}
