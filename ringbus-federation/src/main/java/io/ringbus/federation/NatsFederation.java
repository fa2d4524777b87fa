package io.ringbus.federation;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import io.nats.client.impl.NatsMessage;
import io.ringbus.core.Federation;
import io.ringbus.core.FederationContext;
import io.ringbus.core.FederationStats;
import io.ringbus.core.Headers;
import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.federation.internal.JnatsHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The federation link over NATS: ringbus nodes are clients of one NATS cluster (or server), and
 * share their PUBLIC and FEDERATED subjects through it. Set it on each node's broker:
 *
 * <pre>{@code
 * Broker broker = Broker.builder().name("node-a")
 *         .federation(NatsFederation.builder("nats://a:4222,nats://b:4222").build())
 *         .build();
 * }</pre>
 *
 * <p><b>What crosses.</b> Every message published on a node to a PUBLIC or FEDERATED subject is
 * published to NATS with the header {@value #ORIGIN} naming the node; PRIVATE and ROOT never are.
 * A node subscribes on NATS to the patterns of its own subscriptions (queue subscriptions for queue
 * groups), so it receives only what its subscribers want. Its connection has {@code echo} off, and
 * what it receives it delivers locally only: no message goes round twice, with any number of nodes.
 *
 * <p><b>Queue groups across nodes</b> get each message once in the whole federation, local members
 * first: a node that delivered a message to members of groups names them in {@value #SERVED}, and
 * the other nodes' members of those groups do not get it again; otherwise NATS picks one node's
 * queue subscription.
 *
 * <p><b>Failure.</b> The connection reconnects for ever (by default); while it is down jnats
 * buffers up to {@link Builder#reconnectBufferBytes} of outgoing messages, and what does not fit is
 * counted as not sent ({@link FederationStats#notSent()}), never dropped silently. Live messages
 * published while the link is down are lost for the other nodes; durable subjects
 * ({@code JetStreamStorage}) are not, they are in JetStream.
 *
 * <p>Thread-safe: the broker calls {@link #send} from publishing threads and {@link #interest}
 * from subscribing ones; messages from NATS arrive on one jnats dispatcher thread, in order.
 */
public final class NatsFederation implements Federation {
    /** The header naming the node a message was published on. */
    public static final String ORIGIN = "Ringbus-Origin";
    /** The header naming the queue groups that received a message on its origin node. */
    public static final String SERVED = "Ringbus-Groups";

    private static final Logger LOG = LoggerFactory.getLogger(NatsFederation.class);

    private final Options.Builder options;
    private final long pendingMessages;
    private final long pendingBytes;
    private final String servers;
    private final ReentrantLock lock = new ReentrantLock();
    /** Interest: "pattern" or "pattern\u0000group" to its local subscription count and NATS subscription. */
    private final Map<String, Interest> interest = new HashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong notSent = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();
    private volatile FederationContext context;
    private volatile Connection connection;
    private volatile Dispatcher dispatcher;
    private volatile boolean closed;

    private static final class Interest {
        final String pattern;
        final String group;
        int count;
        Subscription subscription;

        Interest(String pattern, String group) {
            this.pattern = pattern;
            this.group = group;
        }
    }

    private NatsFederation(Builder builder) {
        this.servers = builder.servers;
        this.pendingMessages = builder.pendingMessages;
        this.pendingBytes = builder.pendingBytes;
        Options.Builder o = new Options.Builder().servers(builder.servers.split(","))
                .noEcho()
                .maxReconnects(builder.maxReconnects)
                .reconnectWait(builder.reconnectWait)
                .reconnectBufferSize(builder.reconnectBufferBytes)
                .connectionTimeout(builder.connectTimeout)
                .connectionListener(this::onEvent)
                .errorListener(new LinkErrors());
        if (builder.connectionName != null) {
            o.connectionName(builder.connectionName);
        }
        if (builder.user != null) {
            o.userInfo(builder.user.toCharArray(), builder.password);
        }
        if (builder.token != null) {
            o.token(builder.token.toCharArray());
        }
        if (builder.sslContext != null) {
            o.sslContext(builder.sslContext);
        }
        this.options = o;
    }

    /**
     * @param servers comma-separated NATS URLs, e.g. {@code nats://a:4222,nats://b:4222}
     * @return a builder with the defaults: reconnect for ever every 2 s, 8 MiB reconnect buffer
     */
    public static Builder builder(String servers) {
        return new Builder(servers);
    }

    @Override
    public void start(FederationContext broker) {
        this.context = Objects.requireNonNull(broker, "context");
        if (options.build().getConnectionName() == null) {
            options.connectionName("ringbus-" + broker.nodeName());
        }
        try {
            // Returns at once when no server answers: it keeps trying in the background, and
            // what is sent meanwhile waits in the reconnect buffer.
            Connection c = Nats.connectReconnectOnConnect(options.build());
            if (c.getStatus() == Connection.Status.CLOSED) {
                // jnats gives up at once on what retrying cannot fix: an authorization violation, a TLS failure.
                throw new IllegalStateException("federation link to " + servers + " refused: " + c.getLastError());
            }
            lock.lock();
            try {
                connection = c;
                dispatcher = c.createDispatcher();
                // Bounded in messages and bytes: a node that handles too slowly drops (counted), the
                // other nodes and NATS go on.
                dispatcher.setPendingLimits(pendingMessages, pendingBytes);
                for (Interest i : interest.values()) {
                    subscribe(i);
                }
            } finally {
                lock.unlock();
            }
        } catch (IOException e) {
            throw new IllegalStateException("federation link to " + servers + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting the federation link to " + servers, e);
        }
    }

    @Override
    public void send(String subject, String replyTo, Headers headers, Object payload, String[] servedGroups) {
        Connection c = connection;
        byte[] data = bytes(payload);
        if (c == null || closed || data == null) {
            notSent.incrementAndGet();
            return;
        }
        io.nats.client.impl.Headers h = JnatsHeaders.toNats(headers);
        if (h == null) {
            h = new io.nats.client.impl.Headers();
        }
        h.put(ORIGIN, context.nodeName());
        if (servedGroups.length > 0) {
            h.put(SERVED, String.join(",", servedGroups));
        }
        try {
            c.publish(NatsMessage.builder().subject(subject).replyTo(replyTo).headers(h).data(data).build());
            sent.incrementAndGet();
        } catch (IllegalStateException | IllegalArgumentException e) {
            // Closed, or the reconnect buffer is full while the link is down: lost for the others, counted.
            notSent.incrementAndGet();
        }
    }

    private static byte[] bytes(Object payload) {
        if (payload == null) {
            return new byte[0];
        }
        if (payload instanceof byte[] b) {
            return b;
        }
        if (payload instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        return null;
    }

    @Override
    public void interest(String pattern, String queueGroup, boolean added) {
        String key = queueGroup == null ? pattern : pattern + '\u0000' + queueGroup;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            Interest i = interest.get(key);
            if (added) {
                if (i == null) {
                    i = new Interest(pattern, queueGroup);
                    interest.put(key, i);
                }
                if (i.count++ == 0 && dispatcher != null) {
                    subscribe(i);
                }
            } else if (i != null && --i.count == 0) {
                interest.remove(key);
                if (i.subscription != null && dispatcher != null) {
                    dispatcher.unsubscribe(i.subscription);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under {@link #lock}. */
    private void subscribe(Interest i) {
        if (i.group == null) {
            i.subscription = dispatcher.subscribe(i.pattern, m -> receive(m, i.pattern, null));
        } else {
            i.subscription = dispatcher.subscribe(i.pattern, i.group, m -> receive(m, i.pattern, i.group));
        }
    }

    /** The dispatcher thread: one message from another node. */
    private void receive(Message message, String pattern, String group) {
        io.nats.client.impl.Headers h = message.getHeaders();
        if (group != null && h != null && served(h.getFirst(SERVED), group)) {
            return; // its origin node gave it to members of this group already
        }
        Headers headers;
        if (message.isStatusMessage()) {
            // A NATS status (503: no responders to a request this node sent): keep it as a status.
            headers = NatsHeaderBlock.wrap(NatsHeaderBlock.statusBlock(String.valueOf(message.getStatus().getCode())));
        } else {
            headers = JnatsHeaders.fromNats(h);
            if (h != null && h.containsKey(SERVED)) {
                headers = without(headers, SERVED);
            }
        }
        try {
            if (context.deliver(message.getSubject(), message.getReplyTo(), headers, message.getData(), pattern,
                    group)) {
                received.incrementAndGet();
            } else {
                refused.incrementAndGet();
            }
        } catch (IllegalStateException e) {
            refused.incrementAndGet(); // the broker is closing
        }
    }

    private static boolean served(String groups, String group) {
        if (groups == null) {
            return false;
        }
        for (String g : groups.split(",")) {
            if (g.equals(group)) {
                return true;
            }
        }
        return false;
    }

    private static Headers without(Headers headers, String name) {
        Headers.Builder b = Headers.builder();
        for (String n : headers.names()) {
            if (!n.equals(name)) {
                for (String v : headers.all(n)) {
                    b.add(n, v);
                }
            }
        }
        return b.build();
    }

    private void onEvent(Connection c, ConnectionListener.Events event) {
        if (event == ConnectionListener.Events.RECONNECTED) {
            reconnects.incrementAndGet();
        }
        LOG.info("federation link {}: {} ({})", servers, event, c.getConnectedUrl());
    }

    @Override
    public boolean isConnected() {
        Connection c = connection;
        return c != null && c.getStatus() == Connection.Status.CONNECTED;
    }

    @Override
    public FederationStats stats() {
        Connection c = connection;
        String state = closed ? "CLOSED" : c == null ? "DISCONNECTED" : c.getStatus().name();
        int patterns;
        lock.lock();
        try {
            patterns = interest.size();
        } finally {
            lock.unlock();
        }
        Dispatcher d = dispatcher;
        return new FederationStats(state, c == null ? null : c.getConnectedUrl(), sent.get(), received.get(),
                notSent.get(), refused.get(), d == null ? 0 : d.getDroppedCount(),
                d == null ? 0 : d.getPendingMessageCount(), patterns, reconnects.get());
    }

    @Override
    public void close() {
        Connection c;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            c = connection;
        } finally {
            lock.unlock();
        }
        if (c != null) {
            try {
                c.flush(Duration.ofSeconds(2));
            } catch (Exception e) {
                LOG.debug("federation link {}: flush at close: {}", servers, e.toString());
            }
            try {
                c.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "NatsFederation[" + servers + "]";
    }

    /** Logs what jnats reports about the link, once per kind of trouble at WARN. */
    private final class LinkErrors implements ErrorListener {
        @Override
        public void errorOccurred(Connection conn, String error) {
            LOG.warn("federation link {}: server error: {}", servers, error);
        }

        @Override
        public void exceptionOccurred(Connection conn, Exception exp) {
            LOG.warn("federation link {}: {}", servers, exp.toString());
        }

        @Override
        public void slowConsumerDetected(Connection conn, io.nats.client.Consumer consumer) {
            LOG.warn("federation link {}: this node reads too slowly; NATS drops what it cannot take", servers);
        }
    }

    /** Configures a {@link NatsFederation}. Not thread-safe. */
    public static final class Builder {
        private final String servers;
        private String user;
        private char[] password;
        private String token;
        private String connectionName;
        private javax.net.ssl.SSLContext sslContext;
        private int maxReconnects = -1;
        private Duration reconnectWait = Duration.ofSeconds(2);
        private long reconnectBufferBytes = 8L << 20;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private long pendingMessages = 100_000;
        private long pendingBytes = 64L << 20;

        private Builder(String servers) {
            if (servers == null || servers.isBlank()) {
                throw new IllegalArgumentException("servers must name at least one NATS URL: servers='" + servers + "'");
            }
            for (String url : servers.split(",")) {
                if (url.isBlank()) {
                    throw new IllegalArgumentException("servers has an empty URL: servers='" + servers + "'");
                }
            }
            this.servers = servers;
        }

        /**
         * @param name     the NATS user
         * @param secret   its password
         * @return this builder
         */
        public Builder user(String name, String secret) {
            this.user = Objects.requireNonNull(name, "user");
            this.password = Objects.requireNonNull(secret, "password").toCharArray();
            return this;
        }

        /**
         * @param value an authentication token
         * @return this builder
         */
        public Builder token(String value) {
            this.token = Objects.requireNonNull(value, "token");
            return this;
        }

        /**
         * @param name the connection's name on the NATS server (default {@code ringbus-<broker name>})
         * @return this builder
         */
        public Builder connectionName(String name) {
            this.connectionName = name;
            return this;
        }

        /**
         * @param context TLS to the NATS servers
         * @return this builder
         */
        public Builder tls(javax.net.ssl.SSLContext context) {
            this.sslContext = Objects.requireNonNull(context, "sslContext");
            return this;
        }

        /**
         * @param count reconnect attempts before giving up, -1 for ever (the default)
         * @return this builder
         */
        public Builder maxReconnects(int count) {
            if (count < -1) {
                throw new IllegalArgumentException("maxReconnects must be >= -1: maxReconnects=" + count);
            }
            this.maxReconnects = count;
            return this;
        }

        /**
         * @param wait the pause between reconnect attempts to the same server
         * @return this builder
         */
        public Builder reconnectWait(Duration wait) {
            if (wait == null || wait.isNegative()) {
                throw new IllegalArgumentException("reconnectWait must be >= 0: reconnectWait=" + wait);
            }
            this.reconnectWait = wait;
            return this;
        }

        /**
         * @param bytes outgoing bytes kept while the link is down; past them messages are counted as not sent
         * @return this builder
         */
        public Builder reconnectBufferBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("reconnectBufferBytes must be >= 0: reconnectBufferBytes=" + bytes);
            }
            this.reconnectBufferBytes = bytes;
            return this;
        }

        /**
         * @param timeout how long one connection attempt may take
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("connectTimeout must be positive: connectTimeout=" + timeout);
            }
            this.connectTimeout = timeout;
            return this;
        }

        /**
         * Bounds what the link holds from other nodes while this node's subscribers are slow; past
         * either limit NATS messages are dropped and counted ({@link FederationStats#dropped()}).
         *
         * @param messages the most messages pending, &gt; 0 (default 100,000)
         * @param bytes    the most bytes pending, &gt; 0 (default 64 MiB)
         * @return this builder
         */
        public Builder pendingLimits(long messages, long bytes) {
            if (messages < 1 || bytes < 1) {
                throw new IllegalArgumentException("pending limits must be positive: messages=" + messages
                        + ", bytes=" + bytes);
            }
            this.pendingMessages = messages;
            this.pendingBytes = bytes;
            return this;
        }

        /** @return the link; the broker starts it */
        public NatsFederation build() {
            return new NatsFederation(this);
        }
    }
}
