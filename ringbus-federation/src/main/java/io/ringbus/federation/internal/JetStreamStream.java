package io.ringbus.federation.internal;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.PublishOptions;
import io.nats.client.api.StreamState;
import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.core.StreamInfo;
import io.ringbus.core.memory.ByteBudget;
import io.ringbus.core.wire.HeaderNames;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * One JetStream stream: appends are {@link JetStream#publishAsync} with the stream expected and
 * the message id as {@code Nats-Msg-Id}, acknowledged by the stream's PubAck; consumers are
 * durable pull consumers ({@link JetStreamConsumer}).
 *
 * <p><b>Bounded.</b> Each append takes its bytes (payload, subject, headers, message id) from the
 * stream's {@link ByteBudget} of {@code maxPendingBytes}, exactly, before it is published, and
 * gives them back when its PubAck or failure comes, or when no PubAck came within the request
 * timeout; that release wakes the appenders waiting for room. One append larger than the whole
 * budget is let through when nothing else is pending, as the local store does.
 *
 * <p><b>Threads.</b> Thread-safe. Futures complete on jnats' reply thread, shared by every
 * request on the connection: what is chained to them must not block (and must not
 * {@link #append} into a full stream, which waits for that very thread).
 */
public final class JetStreamStream implements StoredStream {
    /** The longest a waiting appender waits before it checks that the stream is open and tries again. */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Connection connection;
    private final JetStream jetStream;
    private final JetStreamManagement management;
    private final StreamConfig config;
    private final long timeoutMillis;
    /** Bytes of appends awaiting their PubAck. */
    private final ByteBudget pending;
    /** {@link #checkOpen}, made once: an append that waits for room passes it without allocating. */
    private final Runnable openCheck = this::checkOpen;
    private final PublishOptions expectStream;
    private final Map<String, Counts> counts = new ConcurrentHashMap<>();
    private final Set<JetStreamConsumer> handles = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** Deliveries of one durable consumer through this process's handles, for its stats. */
    static final class Counts {
        final LongAdder delivered = new LongAdder();
        final LongAdder redelivered = new LongAdder();
    }

    /**
     * Opens a stream declared on the server ({@link StreamDeclaration#declare}).
     *
     * @param connection      the connection
     * @param options         its JetStream options
     * @param management      its JetStream API
     * @param config          the stream
     * @param requestTimeout  how long to wait for a PubAck or an API reply
     * @param maxPendingBytes the most bytes of appends awaiting their PubAck
     * @throws IOException when JetStream cannot be used on the connection
     */
    public JetStreamStream(Connection connection, JetStreamOptions options, JetStreamManagement management,
                           StreamConfig config, Duration requestTimeout, long maxPendingBytes) throws IOException {
        this.connection = connection;
        this.jetStream = connection.jetStream(options);
        this.management = management;
        this.config = config;
        this.timeoutMillis = requestTimeout.toMillis();
        this.pending = new ByteBudget(maxPendingBytes);
        this.expectStream = PublishOptions.builder().expectedStream(config.name()).build();
    }

    @Override
    public StreamConfig config() {
        return config;
    }

    @Override
    public CompletableFuture<PublishAck> append(String subject, Headers headers, byte[] payload, String msgId) {
        return append(subject, headers, payload, msgId, true);
    }

    @Override
    public CompletableFuture<PublishAck> tryAppend(String subject, Headers headers, byte[] payload, String msgId) {
        return append(subject, headers, payload, msgId, false);
    }

    private CompletableFuture<PublishAck> append(String subject, Headers headers, byte[] payload, String msgId,
                                                 boolean wait) {
        if (!config.stores(subject)) {
            throw new IllegalArgumentException("subject '" + subject + "' is not stored by stream '" + config.name()
                    + "' (" + config.subjects() + ")");
        }
        checkOpen();
        io.nats.client.impl.Headers natsHeaders = JnatsHeaders.toNats(headers);
        if (msgId != null && natsHeaders != null) {
            natsHeaders.remove(HeaderNames.MSG_ID); // the msgId argument is the id: set once, below
        }
        byte[] body = payload == null ? new byte[0] : payload;
        long bytes = body.length + subject.length() + (natsHeaders == null ? 0 : natsHeaders.serializedLength())
                + (msgId == null ? 0 : msgId.length());
        long maxPayload = connection.getServerInfo() == null ? 0 : connection.getServerInfo().getMaxPayload();
        if (maxPayload > 0 && body.length + (natsHeaders == null ? 0 : natsHeaders.serializedLength()) > maxPayload) {
            throw new IllegalArgumentException("message too large for stream '" + config.name() + "': " + body.length
                    + " payload bytes and headers > the server's max_payload " + maxPayload);
        }
        if (!reserve(bytes, wait)) {
            return null;
        }
        PublishOptions options = msgId == null ? expectStream
                : PublishOptions.builder().expectedStream(config.name()).messageId(msgId).build();
        CompletableFuture<PublishAck> result = new CompletableFuture<>();
        try {
            jetStream.publishAsync(subject, natsHeaders, body, options)
                    .orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
                    .whenComplete((ack, failure) -> {
                        pending.release(bytes);
                        if (failure == null) {
                            result.complete(new PublishAck(ack.getStream(), ack.getSeqno(), ack.isDuplicate()));
                        } else {
                            result.completeExceptionally(failed(subject, failure));
                        }
                    });
        } catch (RuntimeException e) {
            // A closed connection, or jnats' reconnect buffer full while disconnected.
            pending.release(bytes);
            result.completeExceptionally(failed(subject, e));
        }
        return result;
    }

    /**
     * Takes an append's bytes from the budget.
     *
     * @return false only when {@code wait} is false and there is no room
     * @throws IllegalStateException when the stream is closed (also while waiting)
     * @throws StorageException      when interrupted while waiting (the interrupt flag is set again)
     */
    private boolean reserve(long bytes, boolean wait) {
        checkOpen(); // again, right before taking: a close may have come since append's first check
        if (!wait) {
            return pending.tryAcquire(bytes);
        }
        try {
            pending.acquireWoken(bytes, RECHECK_NANOS, openCheck);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException("interrupted waiting for room in stream '" + config.name() + "'", e);
        }
    }

    private StorageException failed(String subject, Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException
                || cause.getClass() == RuntimeException.class) && cause.getCause() != null) {
            cause = cause.getCause(); // jnats wraps the API error in a bare RuntimeException
        }
        String why;
        if (cause instanceof TimeoutException || cause instanceof CancellationException) {
            why = "no PubAck within " + timeoutMillis + " ms (it may be stored: append it again with the same"
                    + " msgId to store it once)";
        } else if (cause instanceof JetStreamApiException api) {
            why = "JetStream refused it: " + api.getMessage();
        } else {
            why = String.valueOf(cause.getMessage() == null ? cause : cause.getMessage());
        }
        return new StorageException("stream '" + config.name() + "': append to '" + subject + "' failed: " + why,
                cause);
    }

    @Override
    public StreamConsumer consumer(ConsumerConfig consumerConfig) {
        checkOpen();
        ConsumerDeclaration.declare(management, config, consumerConfig);
        Counts shared = counts.computeIfAbsent(consumerConfig.durableName(), name -> new Counts());
        JetStreamConsumer handle;
        try {
            handle = new JetStreamConsumer(this, jetStream, management, consumerConfig, shared);
        } catch (IOException | JetStreamApiException e) {
            throw new StorageException("cannot bind to durable consumer '" + consumerConfig.durableName()
                    + "' of stream '" + config.name() + "': " + e.getMessage(), e);
        }
        handles.add(handle);
        return handle;
    }

    void closed(JetStreamConsumer handle) {
        handles.remove(handle);
    }

    @Override
    public StreamInfo info() {
        try {
            StreamState state = management.getStreamInfo(config.name()).getStreamState();
            long last = state.getLastSequence();
            // An empty stream: JetStream says first 0 (never written) or last + 1 (all deleted).
            long first = state.getMsgCount() == 0 ? last + 1 : state.getFirstSequence();
            return new StreamInfo(config.name(), state.getMsgCount(), state.getByteCount(), first, last);
        } catch (IOException | JetStreamApiException e) {
            throw new StorageException("cannot read stream '" + config.name() + "': " + e.getMessage(), e);
        }
    }

    /** @return the bytes of appends awaiting their PubAck now */
    public long pendingBytes() {
        return pending.used();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("stream closed: " + config.name());
        }
    }

    /**
     * Refuses new appends and consumers, closes the handles, and waits (up to {@code timeoutNanos})
     * for the appends in flight to get their PubAck or fail.
     *
     * @param timeoutNanos the most to wait
     * @return whether every append in flight completed
     */
    public boolean close(long timeoutNanos) {
        closed = true;
        pending.wakeAll(); // the appenders waiting for room run checkOpen, and throw
        for (JetStreamConsumer handle : handles) {
            handle.close();
        }
        return pending.awaitEmpty(timeoutNanos);
    }

    @Override
    public String toString() {
        return "JetStreamStream[" + config.name() + " " + config.subjects() + "]";
    }
}
