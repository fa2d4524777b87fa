package io.ringbus.server;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * Records what a real jnats connection reports: the {@code -ERR} texts the server sent and the
 * exceptions the client raised, so that tests can assert on them (and on their absence).
 */
final class RecordingErrorListener implements ErrorListener {
    final List<String> errors = new CopyOnWriteArrayList<>();
    final List<Exception> exceptions = new CopyOnWriteArrayList<>();

    /**
     * Connects a jnats client to {@code server} that does not reconnect (a server-side close
     * must stay visible) and reports to this listener.
     */
    Connection connect(ServerUnderTest server, UnaryOperator<Options.Builder> options)
            throws IOException, InterruptedException {
        return Nats.connect(options(server, options));
    }

    Connection connect(ServerUnderTest server) throws IOException, InterruptedException {
        return connect(server, o -> o);
    }

    Options options(ServerUnderTest server, UnaryOperator<Options.Builder> options) {
        return options.apply(Options.builder()
                        .server(server.url())
                        .connectionTimeout(Duration.ofSeconds(10))
                        .maxReconnects(0)
                        .errorListener(this))
                .build();
    }

    @Override
    public void errorOccurred(Connection conn, String error) {
        errors.add(error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
        exceptions.add(exp);
    }

    @Override
    public String toString() {
        return "errors=" + errors + ", exceptions=" + exceptions;
    }
}
