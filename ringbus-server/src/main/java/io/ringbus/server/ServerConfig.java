package io.ringbus.server;

import io.ringbus.core.Scope;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link RingbusServer}: address, limits, keep-alive and credentials. Immutable;
 * build with {@link #builder()}. Every limit is explicit, bounded and counted in
 * {@link ServerStats}.
 *
 * <p>Authentication: with no token and no user configured, every client is accepted with
 * {@link #noAuthScope()} (PUBLIC by default, so PRIVATE subjects are unreachable from the
 * network). Otherwise a client must present a configured token or user/password, which maps it to
 * that credential's scope.
 *
 * <p>Monitoring: an HTTP port (default {@value #DEFAULT_MONITOR_PORT} on 127.0.0.1, as
 * nats-server's {@code -m}) serves {@code /varz}, {@code /connz}, {@code /subsz},
 * {@code /healthz}, {@code /metrics} and a live dashboard at {@code /}; read-only, and with
 * credentials configured it requires one of them. {@code monitorPort(MONITOR_OFF)} turns it off.
 *
 * <p>TLS: with {@link Builder#tlsCertFile} and {@link Builder#tlsKeyFile} every client must use
 * TLS (1.2 or 1.3), as with nats-server's {@code tls} block: INFO says {@code tls_required} and
 * the client starts TLS after reading it, or, with {@link Builder#tlsHandshakeFirst}, before the
 * server says anything. {@link Builder#tlsVerify} requires a client certificate signed by
 * {@link Builder#tlsCaFile} (mutual TLS).
 */
public final class ServerConfig {
    /** The NATS default client port. */
    public static final int DEFAULT_PORT = 4222;
    /** NATS's limit on a control line, in octets; fixed by the protocol (the parser's limit, as nats-server). */
    public static final int MAX_CONTROL_LINE = 4_096;
    /** The default {@link Builder#maxPayload}: 1 MiB, as nats-server. */
    public static final int DEFAULT_MAX_PAYLOAD = 1 << 20;
    /** The smallest {@code maxMemory}: 4 MiB. */
    static final long MIN_MAX_MEMORY = 4L << 20;
    /** Largest accepted max_payload: 64 MiB, as nats-server. */
    public static final int MAX_PAYLOAD_LIMIT = 64 << 20;
    /** The NATS default monitoring port. */
    public static final int DEFAULT_MONITOR_PORT = 8222;
    /** A {@link Builder#monitorPort(int)} that turns monitoring off. */
    public static final int MONITOR_OFF = -1;
    /** The default {@link Builder#tlsTimeout}: 2 s, as nats-server. */
    public static final Duration DEFAULT_TLS_TIMEOUT = Duration.ofSeconds(2);
    /** The default {@link Builder#authChecksPerSource}: costly checks one remote address may have waiting. */
    public static final int DEFAULT_AUTH_CHECKS_PER_SOURCE = 32;

    private final String host;
    private final int port;
    private final String serverName;
    private final int maxPayload;
    private final long maxPending;
    private final long maxInputBuffer;
    private final long maxMemory;
    private final int maxConnections;
    private final int maxSubscriptions;
    private final int maxFilters;
    private final long maxFilterBytes;
    private final long maxSubscriptionMemory;
    private final Duration pingInterval;
    private final int maxPingsOut;
    private final Duration authTimeout;
    private final Duration writeDeadline;
    private final int ioThreads;
    private final Scope noAuthScope;
    private final Map<String, Scope> tokens;
    private final Map<String, UserCredential> users;
    private final Map<String, Scope> nkeys;
    private final Authenticator authenticator;
    private final Duration authenticatorTimeout;
    private final int authCheckThreads;
    private final int authChecksPerSource;
    private final Map<String, Permissions> permissions;
    private final String monitorHost;
    private final int monitorPort;
    private final boolean monitorTls;
    private final Path tlsCertFile;
    private final Path tlsKeyFile;
    private final Path tlsCaFile;
    private final boolean tlsVerify;
    private final boolean tlsVerifyAndMap;
    private final boolean tlsHandshakeFirst;
    private final Duration tlsTimeout;
    private final TlsProvider tlsProvider;
    private final List<io.ringbus.server.spi.ServerExtension> extensions;
    private final Map<String, Map<String, String>> extensionSettings;

    /**
     * A user's password and the scope it grants.
     *
     * @param password the password, or its bcrypt hash
     * @param scope    the scope it grants
     */
    public record UserCredential(String password, Scope scope) {
        /** Checks the fields. */
        public UserCredential {
            Objects.requireNonNull(password, "password");
            Objects.requireNonNull(scope, "scope");
        }

        /** @return whether the password is a bcrypt hash ({@code $2a$}, {@code $2b$}, {@code $2y$}), as NATS allows */
        public boolean bcrypt() {
            return password.length() == 60 && (password.startsWith("$2a$") || password.startsWith("$2b$")
                    || password.startsWith("$2y$"));
        }

        @Override
        public String toString() {
            return "UserCredential[password=***, scope=" + scope + ']';
        }
    }

    private ServerConfig(Builder b) {
        this.host = b.host;
        this.port = b.port;
        this.serverName = b.serverName;
        this.maxPayload = b.maxPayload;
        this.maxPending = b.maxPending;
        this.maxMemory = b.maxMemory;
        this.maxInputBuffer = b.maxInputBuffer > 0 ? b.maxInputBuffer : Math.max(1L << 20, b.maxMemory / 8);
        this.maxConnections = b.maxConnections;
        this.maxSubscriptions = b.maxSubscriptions;
        this.maxFilters = b.maxFilters;
        this.maxFilterBytes = b.maxFilterBytes;
        this.maxSubscriptionMemory = b.maxSubscriptionMemory;
        this.pingInterval = b.pingInterval;
        this.maxPingsOut = b.maxPingsOut;
        this.authTimeout = b.authTimeout;
        this.writeDeadline = b.writeDeadline;
        this.ioThreads = b.ioThreads;
        this.noAuthScope = b.noAuthScope;
        this.tokens = Map.copyOf(b.tokens);
        this.users = Map.copyOf(b.users);
        this.nkeys = Map.copyOf(b.nkeys);
        this.authenticator = b.authenticator;
        this.authenticatorTimeout = b.authenticatorTimeout;
        this.authCheckThreads = b.authCheckThreads;
        this.authChecksPerSource = b.authChecksPerSource;
        this.permissions = Map.copyOf(b.permissions);
        this.monitorHost = b.monitorHost;
        this.monitorPort = b.monitorPort;
        this.monitorTls = b.monitorTls;
        this.tlsCertFile = b.tlsCertFile;
        this.tlsKeyFile = b.tlsKeyFile;
        this.tlsCaFile = b.tlsCaFile;
        this.tlsVerify = b.tlsVerify || b.tlsVerifyAndMap;
        this.tlsVerifyAndMap = b.tlsVerifyAndMap;
        this.tlsHandshakeFirst = b.tlsHandshakeFirst;
        this.tlsTimeout = b.tlsTimeout;
        this.tlsProvider = b.tlsProvider;
        this.extensions = List.copyOf(b.extensions.values());
        Map<String, Map<String, String>> settings = new LinkedHashMap<>();
        b.extensionSettings.forEach((name, entries) -> settings.put(name, Map.copyOf(entries)));
        this.extensionSettings = Map.copyOf(settings);
    }

    /** @return a builder with the NATS defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the defaults: 0.0.0.0:4222, no auth, monitoring on 127.0.0.1:8222 */
    public static ServerConfig defaults() {
        return builder().build();
    }

    /** @return the address to bind */
    public String host() {
        return host;
    }

    /** @return the port to bind; 0 picks a free one */
    public int port() {
        return port;
    }

    /** @return the name announced in INFO */
    public String serverName() {
        return serverName;
    }

    /** @return the largest accepted message payload (headers included), in bytes */
    public int maxPayload() {
        return maxPayload;
    }

    /**
     * @return outbound bytes a client may have pending before it is dropped as a slow consumer, as
     *         configured; a connection uses {@link #effectiveMaxPending()}
     */
    public long maxPending() {
        return maxPending;
    }

    /**
     * @return the per-connection bound a connection applies: {@link #maxPending()}, but at most a
     *         quarter of {@link #maxMemory()}, so that one client cannot hold the whole budget
     */
    public long effectiveMaxPending() {
        return Math.max(65_536, Math.min(maxPending, maxMemory / 4));
    }

    /**
     * The heap the server may hold for messages in transit, the one budget its other limits are
     * derived from: incomplete input ({@link #maxInputBuffer()}, an eighth unless set: twice that is its
     * hard bound), output
     * waiting for clients (half, all connections together; past it every network publisher
     * pauses, see {@link #outboundBudget()}), each client's pending output (at most a quarter) and,
     * for the broker the standalone server builds, messages in its ring (a quarter).
     *
     * @return bytes; default a quarter of the maximum heap (large payloads are G1 humongous
     *         objects that can take twice their size, and the heap holds more than messages)
     */
    public long maxMemory() {
        return maxMemory;
    }

    /** @return bytes of output that all connections together may have pending: half of {@link #maxMemory()} */
    public long outboundBudget() {
        return maxMemory / 2;
    }

    /**
     * @return bytes of incomplete operations (a PUB whose payload has not all arrived) that all
     *         connections together may buffer; past it, a connection holding more than 64 KiB of
     *         one stops reading until others complete theirs
     */
    public long maxInputBuffer() {
        return maxInputBuffer;
    }

    /** @return the most clients connected at once */
    public int maxConnections() {
        return maxConnections;
    }

    /** @return the most subscriptions one connection may hold */
    public int maxSubscriptions() {
        return maxSubscriptions;
    }

    /**
     * @return the most content filters one connection may hold ({@code $RB.API.FILTER}): those set
     *         for a subject (subscribed or not) and those attached to a subscription by sid
     */
    public int maxFilters() {
        return maxFilters;
    }

    /** @return the most policy text (normalized, in characters) one connection's filters may hold together */
    public long maxFilterBytes() {
        return maxFilterBytes;
    }

    /**
     * @return the policy text (characters) all connections' filters may hold together: a sixty-fourth
     *         of {@link #maxMemory()} (a compiled policy takes 3 to 19 times its text in heap)
     */
    public long filterBudget() {
        return maxMemory / 64;
    }

    /**
     * @return bytes of heap that all connections' subscriptions may hold together, as estimated by
     *         the server per subscription (a fixed cost plus its subject and queue group; see
     *         docs/server.md); past it a SUB is refused with {@code -ERR}, counted, the connection kept
     */
    public long maxSubscriptionMemory() {
        return maxSubscriptionMemory;
    }

    /** @return how often the server pings a client */
    public Duration pingInterval() {
        return pingInterval;
    }

    /** @return unanswered pings after which a client is closed as stale */
    public int maxPingsOut() {
        return maxPingsOut;
    }

    /** @return how long a client has to send CONNECT when auth is required */
    public Duration authTimeout() {
        return authTimeout;
    }

    /**
     * @return how long a client may stay stalling (its pending bytes above half of maxPending,
     *         its publishers paused) before it is dropped as a slow consumer
     */
    public Duration writeDeadline() {
        return writeDeadline;
    }

    /** @return Netty I/O threads */
    public int ioThreads() {
        return ioThreads;
    }

    /** @return the scope of clients when no credentials are configured */
    public Scope noAuthScope() {
        return noAuthScope;
    }

    /** @return token to scope */
    public Map<String, Scope> tokens() {
        return tokens;
    }

    /** @return user name to credential */
    public Map<String, UserCredential> users() {
        return users;
    }

    /** @return the authentication plug-in, or {@code null} */
    public Authenticator authenticator() {
        return authenticator;
    }

    /**
     * @return how long the plug-in or a costly check (bcrypt) may take to answer, queueing
     *         included, before the client is refused ({@code authenticator_timeout}); default 2 s
     */
    public Duration authenticatorTimeout() {
        return authenticatorTimeout;
    }

    /**
     * @return threads that run costly credential checks (bcrypt), NATS port and monitor together;
     *         default: half the cores, at least one (a flood of wrong passwords may keep them all
     *         busy: the other half still serves clients and the monitor)
     */
    public int authCheckThreads() {
        return authCheckThreads;
    }

    /**
     * @return costly credential checks that may wait per source (remote IP address); past it a
     *         client is refused at once ({@code authenticator_busy}); default {@value #DEFAULT_AUTH_CHECKS_PER_SOURCE}
     */
    public int authChecksPerSource() {
        return authChecksPerSource;
    }

    /** @return NKEY user public key to the scope it grants */
    public Map<String, Scope> nkeys() {
        return nkeys;
    }

    /** @return user name or token to the permissions that restrict it within its scope; absent: none */
    public Map<String, Permissions> permissions() {
        return permissions;
    }

    /** @return the address the monitoring port binds; default 127.0.0.1 (this machine only) */
    public String monitorHost() {
        return monitorHost;
    }

    /** @return the monitoring port: 0 picks a free one, {@link #MONITOR_OFF} means none */
    public int monitorPort() {
        return monitorPort;
    }

    /** @return whether the server runs the monitoring port */
    public boolean monitorEnabled() {
        return monitorPort != MONITOR_OFF;
    }

    /** @return whether the monitoring port serves HTTPS, with the client port's TLS material (nats-server's {@code https_port}) */
    public boolean monitorTls() {
        return monitorTls;
    }

    /** @return whether clients must use TLS (a certificate and key are configured) */
    public boolean tlsEnabled() {
        return tlsCertFile != null;
    }

    /** @return the server's certificate chain (PEM), or {@code null} without TLS */
    public Path tlsCertFile() {
        return tlsCertFile;
    }

    /** @return the server's private key (PEM, PKCS#8), or {@code null} without TLS */
    public Path tlsKeyFile() {
        return tlsKeyFile;
    }

    /** @return the CA certificates (PEM) client certificates are verified against, or {@code null} */
    public Path tlsCaFile() {
        return tlsCaFile;
    }

    /** @return whether a client certificate signed by {@link #tlsCaFile()} is required (mutual TLS) */
    public boolean tlsVerify() {
        return tlsVerify;
    }

    /**
     * @return whether the client certificate names the user (nats-server's {@code verify_and_map}):
     *         one of its email, DNS or URI alternative names or its subject DN is a configured user,
     *         whose scope and permissions apply without a password; a certificate naming no user is
     *         refused (docs/server.md, "Client certificates")
     */
    public boolean tlsVerifyAndMap() {
        return tlsVerifyAndMap;
    }

    /** @return whether the TLS handshake comes before INFO (nats-server's {@code handshake_first}) */
    public boolean tlsHandshakeFirst() {
        return tlsHandshakeFirst;
    }

    /** @return how long a client has to complete the TLS handshake before it is closed */
    public Duration tlsTimeout() {
        return tlsTimeout;
    }

    /** @return which TLS implementation serves the client port; default {@link TlsProvider#AUTO} */
    public TlsProvider tlsProvider() {
        return tlsProvider;
    }

    /** @return the extensions the server starts, in the order added */
    public List<io.ringbus.server.spi.ServerExtension> extensions() {
        return extensions;
    }

    /**
     * @param name an extension's name
     * @return its settings ({@code <name>.<key>} entries), empty when none were given
     */
    public io.ringbus.server.spi.ExtensionSettings extensionSettings(String name) {
        return new io.ringbus.server.spi.ExtensionSettings(name, extensionSettings.getOrDefault(name, Map.of()));
    }

    /** @return whether clients must authenticate */
    public boolean authRequired() {
        return !tokens.isEmpty() || !users.isEmpty() || !nkeys.isEmpty() || authenticator != null;
    }

    @Override
    public String toString() {
        return "ServerConfig{host=" + host + ", port=" + port + ", serverName=" + serverName + ", maxPayload="
                + maxPayload + ", maxPending=" + maxPending + ", maxInputBuffer=" + maxInputBuffer + ", maxMemory=" + maxMemory + ", maxConnections=" + maxConnections
                + ", maxSubscriptions=" + maxSubscriptions + ", maxFilters=" + maxFilters + ", maxFilterBytes="
                + maxFilterBytes + ", maxSubscriptionMemory=" + maxSubscriptionMemory + ", pingInterval=" + pingInterval + ", maxPingsOut="
                + maxPingsOut + ", authTimeout=" + authTimeout + ", writeDeadline=" + writeDeadline + ", ioThreads=" + ioThreads + ", noAuthScope="
                + noAuthScope + ", tokens=" + tokens.size() + ", users=" + users.keySet() + ", monitor="
                + (monitorEnabled() ? monitorHost + ":" + monitorPort : "off")
                + (tlsEnabled() ? ", tls=" + tlsCertFile + (tlsVerify ? " verify" : "")
                + (tlsHandshakeFirst ? " handshake_first" : "") : "") + '}';
    }

    /** Collects settings; each setter validates at once and names the bad value. */
    public static final class Builder {
        private String host = "0.0.0.0";
        private int port = DEFAULT_PORT;
        private String serverName = "ringbus";
        private int maxPayload = DEFAULT_MAX_PAYLOAD;
        private long maxPending = 64L << 20;
        /** 0: derived from maxMemory in the constructor. */
        private long maxInputBuffer;
        private long maxMemory = Math.max(MIN_MAX_MEMORY, Runtime.getRuntime().maxMemory() / 4);
        private int maxConnections = 65_536;
        private int maxSubscriptions = 100_000;
        private int maxFilters = 1_024;
        private long maxFilterBytes = 256L << 10;
        private long maxSubscriptionMemory = Math.max(MIN_MAX_MEMORY, Runtime.getRuntime().maxMemory() / 4);
        private Duration pingInterval = Duration.ofMinutes(2);
        private int maxPingsOut = 2;
        private Duration authTimeout = Duration.ofSeconds(2);
        private Duration writeDeadline = Duration.ofSeconds(2);
        private int ioThreads = Runtime.getRuntime().availableProcessors();
        private Scope noAuthScope = Scope.PUBLIC;
        private final Map<String, Scope> tokens = new LinkedHashMap<>();
        private final Map<String, UserCredential> users = new LinkedHashMap<>();
        private final Map<String, Scope> nkeys = new LinkedHashMap<>();
        private Authenticator authenticator;
        private Duration authenticatorTimeout = Duration.ofSeconds(2);
        private int authCheckThreads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        private int authChecksPerSource = DEFAULT_AUTH_CHECKS_PER_SOURCE;
        private final Map<String, Permissions> permissions = new LinkedHashMap<>();
        private String monitorHost = "127.0.0.1";
        private int monitorPort = DEFAULT_MONITOR_PORT;
        private boolean monitorTls;
        private Path tlsCertFile;
        private Path tlsKeyFile;
        private Path tlsCaFile;
        private boolean tlsVerify;
        private boolean tlsVerifyAndMap;
        private boolean tlsHandshakeFirst;
        private Duration tlsTimeout = DEFAULT_TLS_TIMEOUT;
        private TlsProvider tlsProvider = TlsProvider.AUTO;
        private final Map<String, io.ringbus.server.spi.ServerExtension> extensions = new LinkedHashMap<>();
        private final Map<String, Map<String, String>> extensionSettings = new LinkedHashMap<>();

        private Builder() {
        }

        /** @param host address to bind, e.g. 0.0.0.0 or 127.0.0.1 @return this */
        public Builder host(String host) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("host must be non-blank: host='" + host + "'");
            }
            this.host = host;
            return this;
        }

        /** @param port 0..65535; 0 picks a free port @return this */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be in 0..65535: port=" + port);
            }
            this.port = port;
            return this;
        }

        /** @param serverName name announced in INFO @return this */
        public Builder serverName(String serverName) {
            if (serverName == null || serverName.isBlank() || serverName.indexOf('"') >= 0
                    || serverName.indexOf('\\') >= 0) {
                throw new IllegalArgumentException("serverName must be non-blank without quotes or backslashes: "
                        + "serverName='" + serverName + "'");
            }
            this.serverName = serverName;
            return this;
        }

        /** @param maxPayload 1..64 MiB; default 1 MiB @return this */
        public Builder maxPayload(int maxPayload) {
            if (maxPayload < 1 || maxPayload > MAX_PAYLOAD_LIMIT) {
                throw new IllegalArgumentException("maxPayload must be in 1.." + MAX_PAYLOAD_LIMIT
                        + ": maxPayload=" + maxPayload);
            }
            this.maxPayload = maxPayload;
            return this;
        }

        /**
         * @param maxInputBuffer bytes of incomplete operations buffered by all connections
         *                       together, >= 1 MiB; default an eighth of {@link #maxMemory(long)}
         * @return this
         */
        public Builder maxInputBuffer(long maxInputBuffer) {
            if (maxInputBuffer < (1 << 20)) {
                throw new IllegalArgumentException("maxInputBuffer must be >= 1048576: maxInputBuffer=" + maxInputBuffer);
            }
            this.maxInputBuffer = maxInputBuffer;
            return this;
        }

        /**
         * @param maxMemory bytes of heap for messages in transit, >= 4 MiB; default a quarter of
         *                  the maximum heap (see {@link ServerConfig#maxMemory()})
         * @return this
         */
        public Builder maxMemory(long maxMemory) {
            if (maxMemory < MIN_MAX_MEMORY) {
                throw new IllegalArgumentException("maxMemory must be >= " + MIN_MAX_MEMORY + ": maxMemory=" + maxMemory);
            }
            this.maxMemory = maxMemory;
            return this;
        }

        /**
         * @param maxPending bytes, >= 64 KiB; default 64 MiB (nats-server's); a connection applies at
         *                   most a quarter of {@link #maxMemory(long)}
         * @return this
         */
        public Builder maxPending(long maxPending) {
            if (maxPending < 65_536) {
                throw new IllegalArgumentException("maxPending must be >= 65536: maxPending=" + maxPending);
            }
            this.maxPending = maxPending;
            return this;
        }

        /** @param maxConnections 1..1,000,000; default 65,536 @return this */
        public Builder maxConnections(int maxConnections) {
            if (maxConnections < 1 || maxConnections > 1_000_000) {
                throw new IllegalArgumentException("maxConnections must be in 1..1000000: maxConnections="
                        + maxConnections);
            }
            this.maxConnections = maxConnections;
            return this;
        }

        /** @param maxSubscriptions per connection, 1..10,000,000; default 100,000 @return this */
        public Builder maxSubscriptions(int maxSubscriptions) {
            if (maxSubscriptions < 1 || maxSubscriptions > 10_000_000) {
                throw new IllegalArgumentException("maxSubscriptions must be in 1..10000000: maxSubscriptions="
                        + maxSubscriptions);
            }
            this.maxSubscriptions = maxSubscriptions;
            return this;
        }

        /**
         * @param maxFilters content filters per connection ({@code $RB.API.FILTER}), 1..10,000,000;
         *                   default 1,024
         * @return this
         */
        public Builder maxFilters(int maxFilters) {
            if (maxFilters < 1 || maxFilters > 10_000_000) {
                throw new IllegalArgumentException("maxFilters must be in 1..10000000: maxFilters=" + maxFilters);
            }
            this.maxFilters = maxFilters;
            return this;
        }

        /**
         * @param maxFilterBytes characters of policy text one connection's filters may hold together,
         *                       >= 1,024; default 256 KiB (sixteen policies of the largest size)
         * @return this
         */
        public Builder maxFilterBytes(long maxFilterBytes) {
            if (maxFilterBytes < 1_024) {
                throw new IllegalArgumentException("maxFilterBytes must be >= 1024: maxFilterBytes=" + maxFilterBytes);
            }
            this.maxFilterBytes = maxFilterBytes;
            return this;
        }

        /**
         * @param maxSubscriptionMemory bytes of heap all connections' subscriptions may hold
         *                              together, &gt;= 1 MiB; default a quarter of the maximum heap
         *                              (with {@link #maxMemory(long)}'s quarter, half the heap stays
         *                              for everything else; a subscription takes 400 bytes, twice
         *                              its subject and 240 bytes a token of it)
         * @return this
         * @throws IllegalArgumentException naming the value when it is below 1 MiB
         */
        public Builder maxSubscriptionMemory(long maxSubscriptionMemory) {
            if (maxSubscriptionMemory < (1L << 20)) {
                throw new IllegalArgumentException("maxSubscriptionMemory must be >= 1048576: maxSubscriptionMemory="
                        + maxSubscriptionMemory);
            }
            this.maxSubscriptionMemory = maxSubscriptionMemory;
            return this;
        }

        /** @param pingInterval > 0; default 2 min @return this */
        public Builder pingInterval(Duration pingInterval) {
            this.pingInterval = positive("pingInterval", pingInterval);
            return this;
        }

        /** @param maxPingsOut 1..100; default 2 @return this */
        public Builder maxPingsOut(int maxPingsOut) {
            if (maxPingsOut < 1 || maxPingsOut > 100) {
                throw new IllegalArgumentException("maxPingsOut must be in 1..100: maxPingsOut=" + maxPingsOut);
            }
            this.maxPingsOut = maxPingsOut;
            return this;
        }

        /** @param authTimeout > 0; default 2 s @return this */
        public Builder authTimeout(Duration authTimeout) {
            this.authTimeout = positive("authTimeout", authTimeout);
            return this;
        }

        /** @param writeDeadline > 0; default 2 s (see {@link ServerConfig#writeDeadline()}) @return this */
        public Builder writeDeadline(Duration writeDeadline) {
            this.writeDeadline = positive("writeDeadline", writeDeadline);
            return this;
        }

        /** @param ioThreads Netty I/O threads, 1..1024; default: cores @return this */
        public Builder ioThreads(int ioThreads) {
            if (ioThreads < 1 || ioThreads > 1024) {
                throw new IllegalArgumentException("ioThreads must be in 1..1024: ioThreads=" + ioThreads);
            }
            this.ioThreads = ioThreads;
            return this;
        }

        /** @param scope scope of clients when no credentials are configured; default PUBLIC @return this */
        public Builder noAuthScope(Scope scope) {
            this.noAuthScope = Objects.requireNonNull(scope, "noAuthScope");
            return this;
        }

        /** @param token a secret token @param scope the scope it grants @return this */
        public Builder token(String token, Scope scope) {
            if (token == null || token.isEmpty()) {
                throw new IllegalArgumentException("token must be non-empty");
            }
            tokens.put(token, Objects.requireNonNull(scope, "scope"));
            return this;
        }

        /** @param user a user name @param password its password @param scope the scope it grants @return this */
        public Builder user(String user, String password, Scope scope) {
            if (user == null || user.isEmpty()) {
                throw new IllegalArgumentException("user must be non-empty: user='" + user + "'");
            }
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException("password of user '" + user + "' must be non-empty");
            }
            users.put(user, new UserCredential(password, scope));
            return this;
        }

        /**
         * Adds an authentication plug-in, asked (on a virtual thread) about every client that none
         * of the configured credentials matches; it must answer within {@code timeout} (and before
         * the auth timeout), or the client is refused.
         *
         * @param plugin  the plug-in
         * @param timeout how long it may take, &gt; 0: the {@link #authenticatorTimeout}, which
         *                bcrypt checks share
         * @return this
         * @throws IllegalArgumentException naming the timeout when it is not positive
         */
        public Builder authenticator(Authenticator plugin, Duration timeout) {
            this.authenticator = Objects.requireNonNull(plugin, "authenticator");
            return authenticatorTimeout(timeout);
        }

        /**
         * How long the plug-in or a costly check (a bcrypt password, on the NATS port or the
         * monitor) may take, its wait for a thread included; a check not started by then never
         * runs, and the client is refused ({@code authenticator_timeout}). The auth timeout still
         * bounds the whole CONNECT.
         *
         * @param timeout &gt; 0; default 2 s, the auth timeout's default (nats-server gives a bcrypt check
         *                until its auth deadline, 2 s by default)
         * @return this
         * @throws IllegalArgumentException naming the timeout when it is not positive
         */
        public Builder authenticatorTimeout(Duration timeout) {
            this.authenticatorTimeout = positive("authenticatorTimeout", timeout);
            return this;
        }

        /**
         * @param threads threads that run costly credential checks (bcrypt), 1..1024; started at
         *                the first such check; default: half the cores, at least one
         * @return this
         * @throws IllegalArgumentException naming the value when out of range
         */
        public Builder authCheckThreads(int threads) {
            if (threads < 1 || threads > 1024) {
                throw new IllegalArgumentException("authCheckThreads must be in 1..1024: authCheckThreads=" + threads);
            }
            this.authCheckThreads = threads;
            return this;
        }

        /**
         * Costly credential checks that may wait for a thread per source (remote IP address);
         * sources take turns, so one address's flood cannot starve another's logins. Past the
         * bound the client is refused at once and counted ({@code authenticator_busy}).
         *
         * @param checks 1..65536; default {@value ServerConfig#DEFAULT_AUTH_CHECKS_PER_SOURCE}
         * @return this
         * @throws IllegalArgumentException naming the value when out of range
         */
        public Builder authChecksPerSource(int checks) {
            if (checks < 1 || checks > 65_536) {
                throw new IllegalArgumentException("authChecksPerSource must be in 1..65536: authChecksPerSource="
                        + checks);
            }
            this.authChecksPerSource = checks;
            return this;
        }

        /**
         * Accepts a user by its NKEY (Ed25519) public key: INFO then carries a nonce, which the client
         * signs with its seed; no secret crosses the network.
         *
         * @param publicKey the user's public key ({@code U...})
         * @param scope     the scope it grants
         * @return this
         * @throws IllegalArgumentException naming the key when it is not a valid NKEY user public key
         */
        public Builder nkey(String publicKey, Scope scope) {
            io.ringbus.server.internal.Nkeys.decodeUserKey(publicKey);
            nkeys.put(publicKey, Objects.requireNonNull(scope, "scope"));
            return this;
        }

        /**
         * Restricts a user or token within its scope; checked in {@link #build()} to name a
         * configured user or token.
         *
         * @param userOrToken a user name or token given to {@link #user} or {@link #token}
         * @param permissions what it may publish and subscribe to
         * @return this
         */
        public Builder permissions(String userOrToken, Permissions permissions) {
            this.permissions.put(Objects.requireNonNull(userOrToken, "userOrToken"),
                    Objects.requireNonNull(permissions, "permissions"));
            return this;
        }

        /**
         * @param host address the monitoring port binds; default 127.0.0.1. Binding another
         *             address shows the server's figures to that network: configure credentials.
         * @return this
         */
        public Builder monitorHost(String host) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("monitorHost must be non-blank: monitorHost='" + host + "'");
            }
            this.monitorHost = host;
            return this;
        }

        /**
         * @param port 0..65535 (0 picks a free port), or {@link #MONITOR_OFF}; default
         *             {@value #DEFAULT_MONITOR_PORT}
         * @return this
         */
        public Builder monitorPort(int port) {
            if (port < MONITOR_OFF || port > 65_535) {
                throw new IllegalArgumentException("monitorPort must be in 0..65535, or -1 for off: monitorPort="
                        + port);
            }
            this.monitorPort = port;
            return this;
        }

        /**
         * Serves the monitoring port over HTTPS with the client port's certificate, key and (with
         * {@code tlsVerify}) client-certificate check, as nats-server's {@code https_port} does;
         * reloaded with them. Needs TLS configured.
         *
         * @param https whether the monitoring port speaks TLS; default false
         * @return this
         */
        public Builder monitorTls(boolean https) {
            this.monitorTls = https;
            return this;
        }

        /**
         * @param pem the server's certificate chain, PEM; with {@link #tlsKeyFile} every client
         *            must use TLS
         * @return this
         */
        public Builder tlsCertFile(Path pem) {
            this.tlsCertFile = Objects.requireNonNull(pem, "tlsCertFile");
            return this;
        }

        /** @param pem the server's private key, PEM (PKCS#8: {@code BEGIN PRIVATE KEY}) @return this */
        public Builder tlsKeyFile(Path pem) {
            this.tlsKeyFile = Objects.requireNonNull(pem, "tlsKeyFile");
            return this;
        }

        /** @param pem CA certificates (PEM) that client certificates must be signed by @return this */
        public Builder tlsCaFile(Path pem) {
            this.tlsCaFile = Objects.requireNonNull(pem, "tlsCaFile");
            return this;
        }

        /** @param verify require a client certificate signed by {@link #tlsCaFile} (mutual TLS) @return this */
        public Builder tlsVerify(boolean verify) {
            this.tlsVerify = verify;
            return this;
        }

        /**
         * @param map require a client certificate and take the user it names (implies {@link #tlsVerify})
         * @return this
         */
        public Builder tlsVerifyAndMap(boolean map) {
            this.tlsVerifyAndMap = map;
            return this;
        }

        /** @param first TLS handshake before INFO (nats-server's {@code handshake_first}) @return this */
        public Builder tlsHandshakeFirst(boolean first) {
            this.tlsHandshakeFirst = first;
            return this;
        }

        /** @param timeout > 0; how long a TLS handshake may take; default 2 s @return this */
        public Builder tlsTimeout(Duration timeout) {
            this.tlsTimeout = positive("tlsTimeout", timeout);
            return this;
        }

        /**
         * @param provider OpenSSL, the JDK, or OpenSSL where it loads ({@link TlsProvider#AUTO},
         *                 the default)
         * @return this
         */
        public Builder tlsProvider(TlsProvider provider) {
            this.tlsProvider = Objects.requireNonNull(provider, "tlsProvider");
            return this;
        }

        /**
         * Adds an extension the server starts (a JetStream API, for one); one per name, the later
         * replacing the earlier.
         *
         * @param extension the extension
         * @return this
         * @throws IllegalArgumentException naming it when its name is not lower-case letters, digits and '-'
         */
        public Builder extension(io.ringbus.server.spi.ServerExtension extension) {
            Objects.requireNonNull(extension, "extension");
            String name = extension.name();
            if (name == null || !name.matches("[a-z][a-z0-9-]*")) {
                throw new IllegalArgumentException("extension name must be lower-case letters, digits and '-': '"
                        + name + "' (" + extension.getClass().getName() + ")");
            }
            extensions.put(name, extension);
            return this;
        }

        /**
         * Sets an extension's setting.
         *
         * @param key   {@code <extension name>.<key>}, for example {@code jetstream.enabled}
         * @param value its value, as the extension reads it
         * @return this
         * @throws IllegalArgumentException naming the key when no extension added has its namespace
         */
        public Builder extensionSetting(String key, String value) {
            int dot = key.indexOf('.');
            String name = dot < 0 ? key : key.substring(0, dot);
            if (dot <= 0 || dot == key.length() - 1 || !extensions.containsKey(name)) {
                throw new IllegalArgumentException("unknown key '" + key + "': no extension named '" + name
                        + "' (extensions: " + extensions.keySet() + ")");
            }
            extensionSettings.computeIfAbsent(name, n -> new LinkedHashMap<>()).put(key.substring(dot + 1),
                    Objects.requireNonNull(value, "value"));
            return this;
        }

        /** @return the names of the extensions added so far */
        public java.util.Set<String> extensionNames() {
            return java.util.Set.copyOf(extensions.keySet());
        }

        /**
         * @return the configuration
         * @throws IllegalArgumentException when the TLS settings are incomplete (a certificate
         *                                  without a key, verify without a CA, ...)
         */
        public ServerConfig build() {
            if ((tlsCertFile == null) != (tlsKeyFile == null)) {
                throw new IllegalArgumentException("TLS needs both a certificate and a key: tlsCertFile="
                        + tlsCertFile + ", tlsKeyFile=" + tlsKeyFile);
            }
            if (monitorTls && tlsCertFile == null) {
                throw new IllegalArgumentException("monitorTls (https_port) needs tlsCertFile and tlsKeyFile: the "
                        + "monitor serves the client port's certificate");
            }
            if (tlsVerifyAndMap && users.isEmpty()) {
                throw new IllegalArgumentException("tlsVerifyAndMap needs users for certificates to name");
            }
            boolean verify = tlsVerify || tlsVerifyAndMap;
            if (tlsCertFile == null && (verify || tlsHandshakeFirst || tlsCaFile != null)) {
                throw new IllegalArgumentException("tlsVerify, tlsHandshakeFirst and tlsCaFile need tlsCertFile and "
                        + "tlsKeyFile: tlsVerify=" + tlsVerify + ", tlsHandshakeFirst=" + tlsHandshakeFirst
                        + ", tlsCaFile=" + tlsCaFile);
            }
            if (verify && tlsCaFile == null) {
                throw new IllegalArgumentException("tlsVerify needs tlsCaFile, the CA that signs client certificates");
            }
            for (String name : permissions.keySet()) {
                if (!users.containsKey(name) && !tokens.containsKey(name) && !nkeys.containsKey(name)) {
                    throw new IllegalArgumentException("permissions for '" + name
                            + "', which is no configured user, token or NKEY");
                }
            }
            return new ServerConfig(this);
        }

        private static Duration positive(String what, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + what + "=" + value);
            }
            return value;
        }
    }
}
