package io.ringbus.bench.network;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Listens to jnats connections of one run and keeps what went wrong: server {@code -ERR}s,
 * exceptions, client-side slow-consumer drops and disconnects. The benchmark treats any of these
 * as a failed run; the slow-consumer scenario reports them. Called on jnats' threads; thread-safe.
 *
 * <p>Disconnects after {@link #closing()} are expected and not recorded.
 */
final class ConnectionWatch implements ErrorListener, ConnectionListener {
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private final AtomicLong clientSlowConsumerEvents = new AtomicLong();
    private final AtomicLong disconnects = new AtomicLong();
    private volatile boolean closing;

    @Override
    public void errorOccurred(Connection connection, String error) {
        problems.add(name(connection) + ": server error '" + error + "'");
    }

    @Override
    public void exceptionOccurred(Connection connection, Exception exception) {
        if (!closing) {
            problems.add(name(connection) + ": " + exception);
        }
    }

    @Override
    public void slowConsumerDetected(Connection connection, Consumer consumer) {
        // jnats calls this once when a consumer's pending limit is first exceeded, then drops.
        clientSlowConsumerEvents.incrementAndGet();
        problems.add(name(connection) + ": jnats dropped messages (client-side slow consumer, pending limit reached)");
    }

    @Override
    public void connectionEvent(Connection connection, Events event) {
        if (!closing && (event == Events.DISCONNECTED || event == Events.CLOSED)) {
            disconnects.incrementAndGet();
            problems.add(name(connection) + ": " + event.getEvent());
        }
    }

    /** From now on, disconnects are the run closing its connections. */
    void closing() {
        closing = true;
    }

    /** @return the problems so far, oldest first */
    List<String> problems() {
        return List.copyOf(problems);
    }

    /** @return whether nothing went wrong so far */
    boolean clean() {
        return problems.isEmpty();
    }

    /** @return times jnats reported a client-side slow consumer */
    long clientSlowConsumerEvents() {
        return clientSlowConsumerEvents.get();
    }

    /** @return unexpected disconnects */
    long disconnects() {
        return disconnects.get();
    }

    private static String name(Connection connection) {
        String name = connection == null ? null : connection.getOptions().getConnectionName();
        return name == null ? "connection" : name;
    }
}
