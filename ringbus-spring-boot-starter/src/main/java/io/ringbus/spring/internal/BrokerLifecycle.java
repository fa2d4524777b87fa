package io.ringbus.spring.internal;

import io.ringbus.core.Broker;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the broker on context shutdown, in its own phase: after the embedded server stopped
 * accepting connections and before the listeners unsubscribe. {@code close()} refuses new
 * publishes, waits up to the broker's shutdown timeout for the ring and every buffer to drain
 * into the (still subscribed) listeners, then stops the broker's threads.
 */
public final class BrokerLifecycle implements SmartLifecycle {

    private final Broker broker;
    private final int phase;
    private volatile boolean running;

    /**
     * @param broker the broker to close
     * @param phase  the lifecycle phase
     */
    public BrokerLifecycle(Broker broker, int phase) {
        this.broker = broker;
        this.phase = phase;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        broker.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
