package io.ringbus.server.internal;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslHandler;
import io.ringbus.core.Broker;
import io.ringbus.core.memory.ByteBudget;
import io.ringbus.server.ServerConfig;
import io.ringbus.server.internal.monitor.MonitorExtensions;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every connection of one server shares: the broker, the settings, the counters and the
 * server's identity.
 */
public final class ServerContext {
    /** ringbus's own version: INFO's {@code ringbus_version}, /varz's {@code version}. */
    public static final String VERSION = "0.1.0";
    /**
     * The nats-server version whose client protocol and JetStream API ringbus serves, announced
     * as INFO's {@code version}: the clients gate features on it (nats.js refuses its consumers,
     * KV and object store below 2.9.4; nats.go, jnats and nats.c pick API subjects by it).
     */
    public static final String NATS_VERSION = "2.9.10";

    final Broker broker;
    final ServerConfig config;
    final ServerCounters counters = new ServerCounters();
    /** Where costly credential checks (bcrypt) run, for the NATS port and the monitor. */
    final CostlyCheckPool checks;
    /** The authenticators every connection asks, in order. */
    final AuthChain authChain;
    final String serverId;
    final AtomicLong clientIds = new AtomicLong();
    /** Capacity of every connection's buffer of incomplete input, bounded by {@code maxInputBuffer} (see {@link InputFramer}). */
    final ByteBudget inputBudget;
    /**
     * Capacity of the buffers every connection's outbound holds (encoded, not yet handed to
     * Netty), bounded by {@link ServerConfig#outboundBudget()}: counted per buffer, not per
     * message, so that fan-out does not contend on it.
     */
    final ByteBudget outboundBudget;
    /** Policy text held by every connection's content filters, bounded by {@link ServerConfig#filterBudget()}. */
    final AtomicLong filterBytes = new AtomicLong();
    /** Every connection's subscriptions, as {@link SubscriptionCost} estimates their heap; bounded by max_subscription_memory. */
    final AtomicLong subscriptionBytes = new AtomicLong();
    /**
     * The one connection allowed to go on buffering a large incomplete message while the input
     * budget is spent, so that some message always completes and frees its share (no deadlock
     * of connections that all wait for each other). Bound: the budget plus one max_payload.
     */
    final java.util.concurrent.atomic.AtomicReference<Object> inputOverdraft =
            new java.util.concurrent.atomic.AtomicReference<>();
    /** Live, counted connections by client id; for the monitor. */
    final ConcurrentHashMap<Long, NatsConnection> connections = new ConcurrentHashMap<>();
    final long startMillis = System.currentTimeMillis();
    volatile int boundPort;
    /** TLS on the client port, or {@code null} without. */
    final TlsPipeline tls;
    /** The subject prefixes extensions answer. */
    final ExtensionHandlers extensions = new ExtensionHandlers();
    /** What extensions add to the monitor. */
    final MonitorExtensions monitorExtensions = new MonitorExtensions();

    /** Forgets every extension handler and monitoring addition: the extensions are closing. */
    public void extensionsClosed() {
        extensions.clear();
        monitorExtensions.clear();
    }

    /** @return what extensions add to the monitor: paths, {@code /varz} objects, dashboard cards */
    public MonitorExtensions monitorExtensions() {
        return monitorExtensions;
    }

    /** @return the policy text (characters) every connection's content filters hold together */
    public long filterBytes() {
        return filterBytes.get();
    }

    /** @return the heap every connection's subscriptions hold together, as {@link SubscriptionCost} estimates it */
    public long subscriptionBytes() {
        return subscriptionBytes.get();
    }

    /** @return the capacity of the buffers waiting for clients, all connections together */
    public long outboundBuffered() {
        return outboundBudget.used();
    }

    /**
     * @return whether the output waiting for all clients together is past
     *         {@link ServerConfig#outboundBudget()}: network publishers pause, and a client that
     *         takes no bytes meanwhile is cut off after the write deadline
     */
    boolean outboundOverBudget() {
        return outboundBudget.exceeded();
    }

    /**
     * @param broker the broker behind the server
     * @param config the server's settings
     * @throws IllegalArgumentException naming the TLS files when they cannot be used
     */
    public ServerContext(Broker broker, ServerConfig config) {
        this.broker = broker;
        this.config = config;
        this.inputBudget = new ByteBudget(config.maxInputBuffer());
        this.outboundBudget = new ByteBudget(config.outboundBudget());
        this.checks = new CostlyCheckPool(config.authCheckThreads(), config.authChecksPerSource(), counters);
        this.authChain = AuthChain.of(config, checks);
        this.tls = config.tlsEnabled() ? new TlsPipeline(config, counters) : null;
        this.serverId = "RB" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36).toUpperCase();
        counters.activeSubscriptionsFrom(() -> {
            long active = 0;
            for (NatsConnection connection : connections.values()) {
                active += connection.activeSubscriptions();
            }
            return active;
        });
    }

    /**
     * Any thread: a TLS handler with the client port's current certificates, for the monitor's
     * HTTPS; {@code null} without TLS.
     */
    public SslHandler newTlsHandler(ByteBufAllocator allocator) {
        return tls == null ? null : tls.newServerHandler(allocator);
    }

    /** @return where costly credential checks (bcrypt) run, for the NATS port and the monitor */
    public CostlyCheckPool checks() {
        return checks;
    }

    /** Stops what the server's connections share: the costly-check pool. Idempotent. */
    public void close() {
        checks.close();
    }

    /** @return the counters */
    public ServerCounters counters() {
        return counters;
    }

    /** @return the broker behind the server */
    public Broker broker() {
        return broker;
    }

    /** @return the server's settings */
    public ServerConfig config() {
        return config;
    }

    /** @return the id announced in INFO */
    public String serverId() {
        return serverId;
    }

    /** @return when the server started, epoch milliseconds */
    public long startMillis() {
        return startMillis;
    }

    /** @return TLS on the client port, or {@code null} when it is not configured */
    public TlsPipeline tls() {
        return tls;
    }

    /** @return the client port actually bound */
    public int boundPort() {
        return boundPort;
    }

    /**
     * Any thread: the live connections, in no particular order, each read without stopping it.
     *
     * @param withSubscriptions whether to list each connection's subscriptions
     */
    public List<ConnectionInfo> connections(boolean withSubscriptions) {
        List<ConnectionInfo> list = new ArrayList<>(connections.size());
        for (NatsConnection connection : connections.values()) {
            list.add(connection.info(withSubscriptions));
        }
        return list;
    }

    /** @param port the port actually bound */
    public void boundPort(int port) {
        this.boundPort = port;
    }

    /** @return the INFO line (with CRLF) for one client */
    String info(long clientId, String clientIp) {
        return info(clientId, clientIp, null);
    }

    /** As {@link #info(long, String)}, with the NKEY nonce this connection must sign, or {@code null}. */
    String info(long clientId, String clientIp, String nonce) {
        StringBuilder json = new StringBuilder(256);
        json.append("INFO {\"server_id\":\"").append(serverId)
                .append("\",\"server_name\":\"").append(config.serverName())
                .append("\",\"version\":\"").append(NATS_VERSION)
                .append("\",\"ringbus_version\":\"").append(VERSION)
                .append("\",\"proto\":1,\"java\":\"").append(Runtime.version().feature())
                .append("\",\"host\":\"").append(config.host())
                .append("\",\"port\":").append(boundPort)
                .append(",\"headers\":true,\"max_payload\":").append(config.maxPayload())
                .append(",\"client_id\":").append(clientId);
        if (clientIp != null) {
            json.append(",\"client_ip\":\"").append(clientIp).append('"');
        }
        if (config.authRequired()) {
            json.append(",\"auth_required\":true");
        }
        if (config.tlsEnabled()) {
            json.append(",\"tls_required\":true");
            if (config.tlsVerify()) {
                json.append(",\"tls_verify\":true");
            }
        }
        if (nonce != null) {
            json.append(",\"nonce\":\"").append(nonce).append('"');
        }
        return json.append("}\r\n").toString();
    }
}
