package io.ringbus.outbox;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Subject;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;

/**
 * Configures a {@link JetStreamSink}; every setter checks its value at once and names a bad one.
 * Not thread-safe.
 */
public final class JetStreamSinkBuilder {
    private final Connection connection;
    private final String serverUrl;
    String name = "jetstream";
    String subjectPrefix;
    int maxConcurrency = JetStreamSink.DEFAULT_MAX_CONCURRENCY;
    Duration ackTimeout = JetStreamSink.DEFAULT_ACK_TIMEOUT;

    JetStreamSinkBuilder(Connection connection, String serverUrl) {
        if (connection == null) {
            checkServerUrl(serverUrl);
        }
        this.connection = connection;
        this.serverUrl = serverUrl;
    }

    private static void checkServerUrl(String serverUrl) {
        if (serverUrl == null || serverUrl.isBlank()) {
            throw new IllegalArgumentException("serverUrl must be non-blank: serverUrl='" + serverUrl + "'");
        }
        try {
            new Options.Builder().server(serverUrl);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("serverUrl is not a NATS server URL: serverUrl='" + serverUrl + "' ("
                    + e.getMessage() + ")", e);
        }
    }

    /**
     * @param name the sink's name in relay stats and logs (default {@code jetstream})
     * @return this builder
     * @throws IllegalArgumentException when blank
     */
    public JetStreamSinkBuilder name(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must be non-blank: name='" + name + "'");
        }
        this.name = name;
        return this;
    }

    /**
     * @param subjectPrefix tokens put before each row's subject, joined with a dot ({@code outbox}
     *                      publishes row {@code orders.created} to {@code outbox.orders.created});
     *                      {@code null} for none (the default)
     * @return this builder
     * @throws IllegalArgumentException naming the prefix when it is not a literal subject
     */
    public JetStreamSinkBuilder subjectPrefix(String subjectPrefix) {
        if (subjectPrefix != null) {
            try {
                Subject.requireLiteral(subjectPrefix);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("subjectPrefix must be a literal subject: subjectPrefix='"
                        + subjectPrefix + "' (" + e.getMessage() + ")", e);
            }
        }
        this.subjectPrefix = subjectPrefix;
        return this;
    }

    /**
     * @param maxConcurrency the most publishes awaiting their PubAck, at least 1 (default
     *                       {@value JetStreamSink#DEFAULT_MAX_CONCURRENCY})
     * @return this builder
     * @throws IllegalArgumentException when below 1
     */
    public JetStreamSinkBuilder maxConcurrency(int maxConcurrency) {
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be at least 1: maxConcurrency=" + maxConcurrency);
        }
        this.maxConcurrency = maxConcurrency;
        return this;
    }

    /**
     * @param ackTimeout how long to wait for a PubAck before the row is retried (default 5 s); keep
     *                   it below the relay's delivery timeout
     * @return this builder
     * @throws IllegalArgumentException when null, zero or negative
     */
    public JetStreamSinkBuilder ackTimeout(Duration ackTimeout) {
        if (ackTimeout == null || ackTimeout.isNegative() || ackTimeout.isZero()) {
            throw new IllegalArgumentException("ackTimeout must be positive: ackTimeout=" + ackTimeout);
        }
        this.ackTimeout = ackTimeout;
        return this;
    }

    /**
     * Creates the sink; with a server URL, first connects (blocking until connected or failed).
     *
     * @return the sink
     * @throws IOException when the connection cannot be opened (interrupted:
     *                     {@link InterruptedIOException}, with the interrupt flag set again) or
     *                     JetStream cannot be used on it
     */
    public JetStreamSink build() throws IOException {
        if (connection != null) {
            return new JetStreamSink(connection, false, this);
        }
        Options options = new Options.Builder().server(serverUrl).connectionName("ringbus-outbox-" + name)
                .maxReconnects(-1).build();
        Connection own;
        try {
            own = Nats.connect(options);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("interrupted connecting to " + serverUrl);
            interrupted.initCause(e);
            throw interrupted;
        }
        try {
            return new JetStreamSink(Objects.requireNonNull(own, "connection"), true, this);
        } catch (IOException | RuntimeException e) {
            closeQuietly(own);
            throw e;
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
