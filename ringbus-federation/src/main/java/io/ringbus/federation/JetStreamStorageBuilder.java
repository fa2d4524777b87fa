package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.federation.internal.ConnectionEventLog;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * Configures a {@link JetStreamStorage}; every setter checks its value at once and names a bad
 * one, {@link #connect()} checks that they fit together. Not thread-safe.
 */
public final class JetStreamStorageBuilder {
    private final Connection connection;
    private String[] servers = {"nats://127.0.0.1:4222"};
    private String user;
    private String password;
    private String token;
    private String connectionName = "ringbus-storage";
    private int maxReconnects = -1;
    private Duration reconnectWait = Duration.ofSeconds(2);
    private Duration requestTimeout = JetStreamStorage.DEFAULT_REQUEST_TIMEOUT;
    private long maxPendingBytes = Storage.DEFAULT_MAX_PENDING_BYTES;

    JetStreamStorageBuilder(Connection connection) {
        this.connection = connection;
    }

    /**
     * @param urls the servers, comma-separated ({@code nats://a:4222,nats://b:4222}); jnats tries
     *             them in random order and learns the rest of the cluster from them (default
     *             {@code nats://127.0.0.1:4222})
     * @return this builder
     * @throws IllegalArgumentException naming the URL that is not a NATS server URL
     */
    public JetStreamStorageBuilder servers(String urls) {
        if (urls == null || urls.isBlank()) {
            throw new IllegalArgumentException("servers must be non-blank: servers='" + urls + "'");
        }
        String[] split = Arrays.stream(urls.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .toArray(String[]::new);
        for (String url : split) {
            try {
                new Options.Builder().server(url);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not a NATS server URL: '" + url + "' (" + e.getMessage() + ")", e);
            }
        }
        this.servers = split;
        return this;
    }

    /**
     * @param user     the user name
     * @param password the password
     * @return this builder
     */
    public JetStreamStorageBuilder userInfo(String user, String password) {
        this.user = Objects.requireNonNull(user, "user");
        this.password = Objects.requireNonNull(password, "password");
        return this;
    }

    /**
     * @param token the authentication token
     * @return this builder
     */
    public JetStreamStorageBuilder token(String token) {
        this.token = Objects.requireNonNull(token, "token");
        return this;
    }

    /**
     * @param name the connection's name, shown by the server's monitor (default {@code ringbus-storage})
     * @return this builder
     * @throws IllegalArgumentException when blank
     */
    public JetStreamStorageBuilder connectionName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("connectionName must be non-blank: connectionName='" + name + "'");
        }
        this.connectionName = name;
        return this;
    }

    /**
     * @param max reconnect attempts after a disconnect before the connection closes; -1 (the
     *            default) for ever
     * @return this builder
     * @throws IllegalArgumentException when below -1
     */
    public JetStreamStorageBuilder maxReconnects(int max) {
        if (max < -1) {
            throw new IllegalArgumentException("maxReconnects must be -1 (for ever) or more: maxReconnects=" + max);
        }
        this.maxReconnects = max;
        return this;
    }

    /**
     * @param wait the pause between reconnect attempts to one server (default 2 s)
     * @return this builder
     * @throws IllegalArgumentException when null or negative
     */
    public JetStreamStorageBuilder reconnectWait(Duration wait) {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("reconnectWait must be zero or positive: reconnectWait=" + wait);
        }
        this.reconnectWait = wait;
        return this;
    }

    /**
     * @param timeout how long to wait for a PubAck or a JetStream API reply (default 5 s); an
     *                append with no PubAck by then fails and gives its bytes back
     * @return this builder
     * @throws IllegalArgumentException when null or under 1 ms
     */
    public JetStreamStorageBuilder requestTimeout(Duration timeout) {
        if (timeout == null || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("requestTimeout must be at least 1 ms: requestTimeout=" + timeout);
        }
        this.requestTimeout = timeout;
        return this;
    }

    /**
     * @param bytes the most bytes of appends a stream has awaiting their PubAck before
     *              {@code append} waits and {@code tryAppend} refuses (default
     *              {@link Storage#DEFAULT_MAX_PENDING_BYTES})
     * @return this builder
     * @throws IllegalArgumentException when not positive
     */
    public JetStreamStorageBuilder maxPendingBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("maxPendingBytes must be positive: maxPendingBytes=" + bytes);
        }
        this.maxPendingBytes = bytes;
        return this;
    }

    /**
     * Opens the storage: with a connection given to {@link JetStreamStorage#builder(Connection)},
     * on it; else connects first (blocking until connected or refused).
     *
     * @return the storage
     * @throws IllegalArgumentException when a connection was given and connection settings too,
     *                                  or both a user and a token
     * @throws StorageException         when no server can be reached, or JetStream is not enabled
     */
    public JetStreamStorage connect() {
        if (user != null && token != null) {
            throw new IllegalArgumentException("give a user and password or a token, not both");
        }
        if (connection != null) {
            if (user != null || token != null) {
                throw new IllegalArgumentException("credentials apply to a connection the storage opens, not to one given");
            }
            return new JetStreamStorage(connection, false, requestTimeout, maxPendingBytes);
        }
        ConnectionEventLog log = new ConnectionEventLog(connectionName);
        Options.Builder options = new Options.Builder().servers(servers).connectionName(connectionName)
                .maxReconnects(maxReconnects).reconnectWait(reconnectWait).connectionTimeout(requestTimeout)
                .errorListener(log).connectionListener(log);
        if (user != null) {
            options.userInfo(user.toCharArray(), password.toCharArray());
        }
        if (token != null) {
            options.token(token.toCharArray());
        }
        Connection own;
        try {
            own = Nats.connect(options.build());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException("interrupted connecting to " + String.join(",", servers), e);
        } catch (IOException | RuntimeException e) {
            throw new StorageException("cannot connect to JetStream at " + String.join(",", servers) + ": "
                    + e.getMessage(), e);
        }
        try {
            return new JetStreamStorage(own, true, requestTimeout, maxPendingBytes);
        } catch (RuntimeException e) {
            try {
                own.close();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            throw e;
        }
    }
}
