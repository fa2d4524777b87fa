package io.ringbus.spring.internal;

import io.ringbus.outbox.Relay;
import io.ringbus.outbox.RelayBuilder;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the outbox relay between the broker's start and its close: it starts after the listeners
 * subscribed, and stops (its current batch delivered and committed) before the broker drains, so
 * the broker never refuses a row the relay claimed. Rows not yet claimed stay in the database and
 * are delivered by the next relay to start: at least once, nothing lost.
 */
public final class OutboxRelayLifecycle implements SmartLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(OutboxRelayLifecycle.class);

    private final Supplier<RelayBuilder> builder;
    private final Duration shutdownTimeout;
    private final int phase;
    private volatile Relay relay;

    /**
     * @param builder         the configured relay builder, asked for on each start
     * @param shutdownTimeout how long {@code stop} waits for the current batch
     * @param phase           the lifecycle phase, above the broker's
     */
    public OutboxRelayLifecycle(Supplier<RelayBuilder> builder, Duration shutdownTimeout, int phase) {
        this.builder = builder;
        this.shutdownTimeout = shutdownTimeout;
        this.phase = phase;
    }

    /** @return the running relay, or {@code null} when stopped */
    public Relay relay() {
        return relay;
    }

    @Override
    public void start() {
        relay = builder.get().start();
    }

    @Override
    public void stop() {
        Relay running = relay;
        relay = null;
        if (running != null && !running.close(shutdownTimeout)) {
            LOG.warn("outbox relay {} did not stop within {}; its batch is delivered again by the next relay",
                    running.name(), shutdownTimeout);
        }
    }

    @Override
    public boolean isRunning() {
        return relay != null;
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
