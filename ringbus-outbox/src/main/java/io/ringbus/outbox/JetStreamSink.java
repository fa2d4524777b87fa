package io.ringbus.outbox;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.api.PublishAck;
import io.nats.client.support.NatsJetStreamConstants;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Delivers rows to NATS JetStream with {@link JetStream#publishAsync}: a row is delivered when
 * its stream acknowledged it (the PubAck), so the row is stored in the stream before the relay
 * marks it delivered.
 *
 * <pre>{@code
 * try (JetStreamSink sink = JetStreamSink.builder("nats://127.0.0.1:4222").subjectPrefix("outbox").build()) {
 *     outbox.relay().sink(sink).start();   // row "orders.created" -> subject "outbox.orders.created"
 * }
 * }</pre>
 *
 * <p><b>Message.</b> Subject: the row's subject, after the configured prefix and a dot if there
 * is one. Payload: the row's. Headers: every row header, {@value OutboxEvent#EVENT_ID_HEADER},
 * {@value OutboxEvent#KEY_HEADER} when keyed, and {@code Nats-Msg-Id} = the row's event id.
 * JetStream drops a message whose {@code Nats-Msg-Id} it has stored within the stream's duplicate
 * window and acknowledges it as a duplicate, so a row redelivered after a relay crashed between
 * the PubAck and its commit is stored once (if redelivered within that window: size the window
 * to outlast a relay restart). A duplicate PubAck counts as delivered, and in {@link #duplicates()}.
 *
 * <p><b>Outcome.</b> PubAck = delivered. A row header NATS refuses (non-ASCII name or value) =
 * {@link PermanentDeliveryException}. Everything else = retry: no PubAck within the ack timeout,
 * a JetStream error in the ack, any jnats exception, a disconnected or closed connection, and a
 * subject no stream captures (the server answers "no responders", 503): a stream may be created
 * later, and until then the relay retries with backoff and finally dead-letters the row.
 *
 * <p>Thread-safe; {@link #deliver} never blocks (jnats queues the publish and completes the ack
 * future on its own thread). {@link #maxConcurrency()} is the relay's bound on publishes awaiting
 * their PubAck.
 */
public final class JetStreamSink implements OutboxSink {
    /** Default bound on publishes awaiting their PubAck. */
    public static final int DEFAULT_MAX_CONCURRENCY = 256;
    /** Default time to wait for a PubAck. */
    public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(5);

    private final Connection connection;
    private final boolean ownsConnection;
    private final JetStream jetStream;
    private final String name;
    private final String subjectPrefix;
    private final int maxConcurrency;
    private final long ackTimeoutMillis;
    private final LongAdder duplicates = new LongAdder();

    JetStreamSink(Connection connection, boolean ownsConnection, JetStreamSinkBuilder builder) throws IOException {
        this.connection = connection;
        this.ownsConnection = ownsConnection;
        this.jetStream = connection.jetStream();
        this.name = builder.name;
        this.subjectPrefix = builder.subjectPrefix == null ? "" : builder.subjectPrefix + ".";
        this.maxConcurrency = builder.maxConcurrency;
        this.ackTimeoutMillis = builder.ackTimeout.toMillis();
    }

    /**
     * Starts configuring a sink that publishes over a connection the caller owns: closing the
     * sink leaves it open.
     *
     * @param connection an open NATS connection to a server with JetStream
     * @return a builder with the defaults
     */
    public static JetStreamSinkBuilder builder(Connection connection) {
        return new JetStreamSinkBuilder(Objects.requireNonNull(connection, "connection"), null);
    }

    /**
     * Starts configuring a sink that opens its own connection (reconnecting forever) when built
     * and closes it when closed.
     *
     * @param serverUrl the server, e.g. {@code nats://127.0.0.1:4222}
     * @return a builder with the defaults
     * @throws IllegalArgumentException naming the URL when it is blank or not a server URL
     */
    public static JetStreamSinkBuilder builder(String serverUrl) {
        return new JetStreamSinkBuilder(null, serverUrl);
    }

    /** @return the name given to the builder (default {@code jetstream}) */
    @Override
    public String name() {
        return name;
    }

    /** @return the bound on publishes awaiting their PubAck given to the builder */
    @Override
    public int maxConcurrency() {
        return maxConcurrency;
    }

    /** @return how many PubAcks said the message was a duplicate (a redelivered row) */
    public long duplicates() {
        return duplicates.sum();
    }

    /**
     * Publishes one row; returns at once.
     *
     * @param event the row
     * @return completes with the {@link PublishAck} when the stream stored the row (or already
     *         had it); fails as the class describes otherwise
     */
    @Override
    public CompletionStage<?> deliver(OutboxEvent event) {
        String subject = subjectPrefix.isEmpty() ? event.subject() : subjectPrefix + event.subject();
        io.nats.client.impl.Headers headers;
        try {
            headers = headers(event);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new PermanentDeliveryException(
                    "row " + event.id() + " has a header NATS refuses: " + e.getMessage(), e));
        }
        CompletableFuture<PublishAck> result = new CompletableFuture<>();
        try {
            jetStream.publishAsync(subject, headers, event.payload())
                    .orTimeout(ackTimeoutMillis, TimeUnit.MILLISECONDS)
                    .whenComplete((ack, failure) -> complete(result, event, subject, ack, failure));
        } catch (RuntimeException e) {
            complete(result, event, subject, null, e);
        }
        return result;
    }

    private static io.nats.client.impl.Headers headers(OutboxEvent event) {
        io.nats.client.impl.Headers headers = new io.nats.client.impl.Headers();
        for (String header : event.headers().names()) {
            headers.add(header, event.headers().all(header));
        }
        headers.put(OutboxEvent.EVENT_ID_HEADER, event.eventId());
        if (event.key() != null) {
            headers.put(OutboxEvent.KEY_HEADER, event.key());
        }
        headers.put(NatsJetStreamConstants.MSG_ID_HDR, event.eventId());
        return headers;
    }

    private void complete(CompletableFuture<PublishAck> result, OutboxEvent event, String subject, PublishAck ack,
                          Throwable failure) {
        if (failure == null) {
            if (ack.isDuplicate()) {
                duplicates.increment();
            }
            result.complete(ack);
            return;
        }
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        String why = cause instanceof TimeoutException ? "no PubAck within " + ackTimeoutMillis + " ms" : cause.toString();
        result.completeExceptionally(new IOException(
                "JetStream publish of row " + event.id() + " to " + subject + " failed: " + why, cause));
    }

    /**
     * Closes the connection if the sink opened it (publishes awaiting a PubAck then fail and are
     * retried by a relay still running: close the relays first). Idempotent.
     */
    @Override
    public void close() {
        if (!ownsConnection) {
            return;
        }
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "JetStreamSink[" + name + ", prefix=" + subjectPrefix + ", maxConcurrency=" + maxConcurrency + "]";
    }
}
