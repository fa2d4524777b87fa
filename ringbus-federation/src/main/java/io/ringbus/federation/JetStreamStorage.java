package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.api.StreamConfiguration;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.federation.internal.JetStreamStream;
import io.ringbus.federation.internal.StreamDeclaration;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable subjects stored in NATS JetStream: each {@link StreamConfig} is a JetStream stream (file
 * storage, its limits, its replicas), each consumer a durable pull consumer. Passes the storage
 * contract suite, as {@link Storage#local} does.
 *
 * <pre>{@code
 * try (Storage storage = JetStreamStorage.builder().servers("nats://n1:4222,nats://n2:4222").connect();
 *      Broker broker = Broker.builder().storage(storage).build()) {
 *     broker.registerSubject("orders.>", Scope.PUBLIC, Durability.DURABLE);
 * }
 * }</pre>
 *
 * <p><b>Durable when.</b> An append completes with the stream's PubAck: stored by the stream's
 * leader and, for R3 and R5, by a majority of its replicas (JetStream's own guarantee, fsync as the
 * server is configured). An acknowledgement from a consumer is one publish (not awaited): it is
 * on the server once {@link #close()} returned, which flushes the connection.
 *
 * <p><b>Differences from the local store</b>, all JetStream's: a message a closed handle had
 * fetched comes back after its ack wait, not at once; the duplicate window is at least 100 ms and at
 * most {@code maxAge}; consumer deliveries are counted per process ({@code ConsumerStats.delivered},
 * {@code redelivered}); the other counters are the server's.
 *
 * <p><b>Threads.</b> Thread-safe. Append futures complete on jnats' reply thread: chain nothing
 * that blocks to them.
 */
public final class JetStreamStorage implements Storage {
    /** Default time to wait for a PubAck or a JetStream API reply. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(JetStreamStorage.class);

    private final Connection connection;
    private final boolean ownsConnection;
    private final JetStreamOptions options;
    private final JetStreamManagement management;
    private final Duration requestTimeout;
    private final long maxPendingBytes;
    private final ReentrantLock openLock = new ReentrantLock();
    private final Map<String, JetStreamStream> streams = new ConcurrentHashMap<>();
    private volatile boolean closed;

    JetStreamStorage(Connection connection, boolean ownsConnection, Duration requestTimeout, long maxPendingBytes) {
        this.connection = connection;
        this.ownsConnection = ownsConnection;
        this.requestTimeout = requestTimeout;
        this.maxPendingBytes = maxPendingBytes;
        try {
            this.options = JetStreamOptions.builder().requestTimeout(requestTimeout).build();
            this.management = connection.jetStreamManagement(options);
            management.getAccountStatistics(); // fails now, not at the first stream, without JetStream
        } catch (IOException | JetStreamApiException e) {
            throw new StorageException("JetStream is not available on " + where() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Starts configuring a storage that opens its own connection (reconnecting for ever by
     * default) and closes it when closed.
     *
     * @return a builder with the defaults
     */
    public static JetStreamStorageBuilder builder() {
        return new JetStreamStorageBuilder(null);
    }

    /**
     * Starts configuring a storage on a connection the caller owns: {@link #close()} flushes it
     * and leaves it open. Its {@code ErrorListener} sees a pull-status warning for each fetch that
     * ended empty; give it one that ignores those.
     *
     * @param connection an open connection to a server with JetStream
     * @return a builder with the defaults
     */
    public static JetStreamStorageBuilder builder(Connection connection) {
        return new JetStreamStorageBuilder(Objects.requireNonNull(connection, "connection"));
    }

    /**
     * Opens a stream, creating it on the server if it does not exist, else updating its limits
     * (its messages and consumers stay).
     *
     * @throws IllegalArgumentException naming both patterns when the stream stores other subjects
     * @throws StorageException         when JetStream refuses the stream (its subjects overlap
     *                                  another stream's, more replicas than servers, ...) or does
     *                                  not answer within the request timeout
     * @throws IllegalStateException    when the storage is closed
     */
    @Override
    public StoredStream stream(StreamConfig config) {
        Objects.requireNonNull(config, "config");
        openLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("storage closed: " + describe());
            }
            JetStreamStream open = streams.get(config.name());
            if (open != null) {
                StreamDeclaration.checkSubjects(config, open.config().subjects());
                return open;
            }
            StreamConfiguration declared = StreamDeclaration.declare(management, config);
            LOG.debug("stream {} ({}) declared: {}", config.name(), config.subjects(), declared);
            JetStreamStream stream = new JetStreamStream(connection, options, management, config, requestTimeout,
                    maxPendingBytes);
            streams.put(config.name(), stream);
            return stream;
        } catch (IOException e) {
            throw new StorageException("JetStream is not available for stream '" + config.name() + "': "
                    + e.getMessage(), e);
        } finally {
            openLock.unlock();
        }
    }

    @Override
    public long maxPendingBytes() {
        return maxPendingBytes;
    }

    /** @return e.g. {@code jetstream nats://10.0.0.5:4222 (file, R3)}: the server, then the streams' replicas */
    @Override
    public String describe() {
        TreeSet<Integer> replicas = new TreeSet<>();
        streams.values().forEach(s -> replicas.add(s.config().replicas()));
        StringBuilder line = new StringBuilder("jetstream ").append(where()).append(" (file");
        replicas.forEach(r -> line.append(r.equals(replicas.first()) ? ", R" : "/R").append(r));
        return line.append(')').toString();
    }

    /** The server connected to, else the first configured; without credentials. */
    private String where() {
        String url = connection.getConnectedUrl();
        if (url == null && !connection.getOptions().getServers().isEmpty()) {
            url = connection.getOptions().getServers().get(0).toString();
        }
        if (url == null) {
            return "(no server)";
        }
        try {
            URI uri = URI.create(url);
            return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
        } catch (IllegalArgumentException e) {
            return "(server url not shown)";
        }
    }

    /** @return the connection the storage uses (its own, or the one it was given) */
    public Connection connection() {
        return connection;
    }

    /**
     * Closes every stream and consumer handle (consumers stay on the server), waits up to the
     * request timeout for the appends in flight to get their PubAck, flushes the connection (so
     * the consumers' acknowledgements are on the server), then closes it if the storage opened it.
     * Idempotent.
     */
    @Override
    public void close() {
        openLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            openLock.unlock();
        }
        long timeoutNanos = requestTimeout.toNanos();
        for (JetStreamStream stream : streams.values()) {
            if (!stream.close(timeoutNanos)) {
                LOG.warn("stream {}: closed with {} bytes of appends still awaiting their PubAck", stream.config().name(),
                        stream.pendingBytes());
            }
        }
        boolean interrupted = false;
        try {
            if (connection.getStatus() == Connection.Status.CONNECTED) {
                connection.flush(requestTimeout);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (TimeoutException | RuntimeException e) {
            LOG.warn("{}: flushing the connection at close failed: {}", describe(), e.toString());
        }
        if (ownsConnection) {
            try {
                connection.close();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
