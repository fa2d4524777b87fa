package io.ringbus.federation.internal;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamSubscription;
import io.nats.client.support.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The error and connection listener of the connections {@code JetStreamStorage} opens: logs
 * through SLF4J instead of jnats' default (java.util.logging at WARNING for everything).
 *
 * <p>A pull request that ended without messages (404 / 408, see {@link JetStreamConsumer}) is
 * the normal end of an idle fetch and logged at TRACE only; disconnects at WARN, reconnects at
 * INFO, errors at ERROR. Called on jnats' threads; never throws.
 */
public final class ConnectionEventLog implements ErrorListener, ConnectionListener {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionEventLog.class);

    private final String name;

    /** @param name the connection's name, for the log lines */
    public ConnectionEventLog(String name) {
        this.name = name;
    }

    @Override
    public void connectionEvent(Connection connection, Events event) {
        switch (event) {
            case DISCONNECTED -> LOG.warn("{}: disconnected from JetStream; reconnecting", name);
            case RECONNECTED, RESUBSCRIBED -> LOG.info("{}: {} ({})", name, event.getEvent(),
                    connection.getConnectedUrl());
            default -> LOG.debug("{}: {}", name, event.getEvent());
        }
    }

    @Override
    public void errorOccurred(Connection connection, String error) {
        LOG.error("{}: server error: {}", name, error);
    }

    @Override
    public void exceptionOccurred(Connection connection, Exception exception) {
        LOG.error("{}: connection exception: {}", name, exception.toString());
    }

    @Override
    public void pullStatusWarning(Connection connection, JetStreamSubscription subscription, Status status) {
        LOG.trace("{}: pull ended: {}", name, status);
    }

    @Override
    public void pullStatusError(Connection connection, JetStreamSubscription subscription, Status status) {
        LOG.error("{}: pull failed on consumer {}: {}", name, consumerName(subscription), status);
    }

    @Override
    public void unhandledStatus(Connection connection, JetStreamSubscription subscription, Status status) {
        LOG.warn("{}: unexpected status on consumer {}: {}", name, consumerName(subscription), status);
    }

    private static String consumerName(JetStreamSubscription subscription) {
        try {
            return subscription.getConsumerName();
        } catch (RuntimeException e) {
            return "?";
        }
    }
}
