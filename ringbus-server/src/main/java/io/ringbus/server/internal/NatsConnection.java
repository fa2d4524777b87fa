package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import io.ringbus.core.Backoff;
import io.ringbus.core.Client;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Headers;
import io.ringbus.core.MessageFilter;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.PublishAck;
import io.ringbus.core.ScopeViolationException;
import io.ringbus.core.StorageException;
import io.ringbus.core.Subject;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.server.AuthFailure;
import io.ringbus.server.AuthRequest;
import io.ringbus.server.Identity;
import io.ringbus.server.spi.RequestHandler;
import io.ringbus.server.Permissions;
import io.ringbus.server.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One NATS client connection, on its Netty event loop: parses the client's operations, turns
 * them into calls on a {@link Client} of the broker with the connection's scope, and writes
 * deliveries through {@link Outbound}.
 *
 * <p>Delivery path: a network subscription is a {@link ExecutionMode#PUBLISHER} subscription,
 * so the publishing connection's own event loop routes each PUB through the broker's index and
 * appends it to each subscriber's {@link Outbound}; the subscriber's event loop writes it out.
 * No shared dispatch thread is on the way, so connections on different event loops never wait
 * for each other, and a connection's pipelined SUB, PUB, UNSUB take effect in order.
 *
 * <p>Backpressure: when the broker refuses a publish (ring or in-flight budget full, for
 * in-process subscribers), or a subscriber it feeds is stalling (its outbound is past the stall
 * mark), the connection stops reading (auto-read off), keeps the rest of its input, and retries
 * with a growing pause; TCP flow control then slows the sender. Nothing accepted is dropped.
 *
 * <p>Durable subjects: a PUB to a subject the broker stores is published with
 * {@link Client#tryPublishWithAck}; a full store pauses reading as a full ring does. Until the
 * store acknowledges it, a PING is not answered (the PONG keeps its place among the PONGs), and a
 * PUB with a reply subject gets JetStream's PubAck there: see {@link DurableAcks}.
 */
final class NatsConnection extends ChannelInboundHandlerAdapter implements ProtocolHandler {
    private static final Logger LOG = LoggerFactory.getLogger(NatsConnection.class);
    /** How long a closing -ERR may take to write before the socket is closed anyway. */
    private static final long CLOSE_DEADLINE_MILLIS = 1_000;
    /** Read pauses while the broker is full or a subscriber stalls: 20 us, doubling to 2 ms. */
    private static final Backoff PAUSE_NANOS = new Backoff(20_000, 2_000_000);
    /**
     * Payloads at least this large are copied out of the input only when someone may receive
     * them: a route probe costs less than the copy (smaller ones are copied without asking).
     */
    private static final int COPY_CHECK_BYTES = 256;
    /** Read pauses while waiting for the input budget, up to 50 ms: many connections may wait at once. */
    private static final Backoff INPUT_PAUSE_NANOS = new Backoff(PAUSE_NANOS.initial(), 50_000_000);
    /** Incomplete input a connection may always hold; above it, it waits while the input budget is spent. */
    private static final int SMALL_INPUT = 64 << 10;
    /** How long the holder of the input overdraft may receive nothing before a waiting connection takes it. */
    private static final long OVERDRAFT_IDLE_NANOS = 50_000_000;
    /** Above this, incomplete input is kept on the heap (bounded by the budget), not in direct memory. */
    private static final int HEAP_INPUT = 64 << 10;
    /** Auto-unsubscribing sids noted before the first look for ended ones. */
    private static final int MIN_ENDING_LOOK = 64;
    /** Least time between two scans for inactive subscriptions that freed nothing. */
    private static final long PRUNE_INTERVAL_NANOS = 100_000_000;
    /** Every network subscription (but its queue group): shared, as a server may hold a million. */
    private static final SubscribeOptions NETWORK_SUBSCRIPTION = SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER);
    /** The connection whose PUB the current thread is routing: told when a subscriber is stalling. */
    private static final FastThreadLocal<NatsConnection> PUBLISHING = new FastThreadLocal<>();

    private final ServerContext server;
    private final long id;
    private final NatsParser parser;
    /** Changed on the event loop only; concurrent because the monitor iterates it. */
    private final Map<String, Subscription> subscriptions = new ConcurrentHashMap<>();
    /** Event loop only: when inactive subscriptions were last dropped at a subscription limit. */
    private long lastPrune = System.nanoTime() - PRUNE_INTERVAL_NANOS;
    /** Event loop only: whether that drop found any (then the next limit may drop again at once). */
    private boolean lastPruneFreed = true;
    /** Event loop only: sids given a message limit ({@code UNSUB sid max}), looked at in {@link #autoUnsubscribing}. */
    private final Set<String> endingSids = new LinkedHashSet<>();
    /** Event loop only: how many of them make the next look. */
    private int endingSidsLookAt = MIN_ENDING_LOOK;
    /** Event loop only: this connection's content filters ($RB.API.FILTER) and their charge. */
    private final ConnectionFilters filters;
    private final ConnectionStats stats = new ConnectionStats();
    private Channel channel;
    private Outbound outbound;
    private ByteBuf cumulation;
    /** The capacity of {@link #cumulation} counted in the server's input budget. */
    private long inputAccounted;
    /** When the client last sent bytes; read by other connections deciding on the input overdraft. */
    private volatile long lastInputNanos = System.nanoTime();
    private ConnectOptions options = ConnectOptions.DEFAULTS;
    private Client client;
    /** The authenticated user's or token's permissions; {@code null}: only its scope restricts it. */
    private ConnectionPermissions permissions;
    /** Event loop only: this connection as extensions see it, made at its first extension request. */
    private ConnectionRequest.Sender requester;
    /** Who the client authenticated as ({@code /connz authorized_user}), or {@code null}; read by the monitor. */
    private volatile String authenticatedAs;
    /** A PUB already permitted that waits to be retried (its reply grant must not be used twice). */
    private String permittedRetry;
    /** Publishes to durable subjects not yet stored, and the PONGs that wait for them. */
    private DurableAcks durableAcks;
    private boolean connectReceived;
    private boolean closing;
    private boolean counted;
    private boolean paused;
    /** The +OK of the PUB being retried (after a pause) was sent already. */
    private boolean pubAcked;
    /** Reading stopped because our own writes (PONG, +OK, -ERR) are not being read by the client. */
    private boolean outputBlocked;
    private long retryNanos = PAUSE_NANOS.initial();
    private boolean needsFlush;
    private int pingsOut;
    private long pingSentNanos;
    private ScheduledFuture<?> pingTimer;
    private ScheduledFuture<?> authTimer;
    /** The authentication awaited off the loop, or null; abandoned if the client leaves. Event-loop thread only. */
    private AuthChain.Attempt pendingAuth;
    /** The NKEY nonce sent in this connection's INFO, or null when no NKEY user is configured. */
    private String nonce;
    /** Subscribers this connection's publishes queued deliveries for, to wake at the end of the read. */
    private final List<Outbound> toFlush = new ArrayList<>(4);
    /** Stalling subscribers this connection's publishes reached; it reads no more until they are not. */
    private final List<Outbound> stalledBy = new ArrayList<>(2);

    NatsConnection(ServerContext server) {
        this.server = server;
        this.id = server.clientIds.incrementAndGet();
        this.parser = new NatsParser(ServerConfig.MAX_CONTROL_LINE, server.config.maxPayload());
        this.filters = new ConnectionFilters(server, subscriptions, this::subscribe);
    }

    // ------------------------------------------------------------ lifecycle

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        ServerConfig config = server.config;
        ServerCounters counters = server.counters;
        if (counters.connections.incrementAndGet() > config.maxConnections()) {
            counters.connections.decrementAndGet();
            counters.rejectedConnections.increment();
            LOG.warn("refusing {}: maxConnections={} reached", channel.remoteAddress(), config.maxConnections());
            // As nats-server: INFO first, so that the client reads the -ERR as the server's answer.
            channel.write(Unpooled.copiedBuffer(server.info(id, null), StandardCharsets.UTF_8), channel.voidPromise());
            closeWith(ProtocolError.MAX_CONNECTIONS);
            return;
        }
        counted = true;
        counters.totalConnections.increment();
        server.connections.put(id, this);
        outbound = new Outbound(channel, counters, stats, config.effectiveMaxPending(),
                config.writeDeadline().toNanos(), server.outboundBuffered, config.outboundBudget(), this::slowConsumer);
        durableAcks = new DurableAcks(channel.eventLoop(), counters, this::pong, id);
        String ip = channel.remoteAddress() instanceof InetSocketAddress address && address.getAddress() != null
                ? address.getAddress().getHostAddress() : null;
        nonce = config.nkeys().isEmpty() ? null : Nkeys.nonce();
        channel.writeAndFlush(Unpooled.copiedBuffer(server.info(id, ip, nonce), StandardCharsets.UTF_8));
        if (server.tls != null) {
            server.tls.startAfterInfo(channel); // NATS clients start TLS once they have read INFO
        }
        if (config.authRequired()) {
            authTimer = channel.eventLoop().schedule(this::authTimeout, config.authTimeout().toNanos(),
                    TimeUnit.NANOSECONDS);
        } else {
            client = server.broker.newClient(config.noAuthScope());
        }
        long ping = config.pingInterval().toNanos();
        pingTimer = channel.eventLoop().scheduleAtFixedRate(this::ping, ping, ping, TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        flushIfNeeded(); // subscribers this connection queued deliveries for must still be woken
        if (pingTimer != null) {
            pingTimer.cancel(false);
        }
        if (authTimer != null) {
            authTimer.cancel(false);
        }
        if (pendingAuth != null) {
            pendingAuth.ticket().abandon(); // a bcrypt check not yet started never runs
        }
        for (Subscription subscription : subscriptions.values()) {
            subscription.unsubscribe();
            release(subscription);
        }
        server.counters.unsubscribes.add(subscriptions.size());
        subscriptions.clear();
        filters.close();
        server.connections.remove(id, this);
        if (durableAcks != null) {
            durableAcks.close();
        }
        if (outbound != null) {
            outbound.close();
        }
        if (cumulation != null) {
            cumulation.release();
            cumulation = null;
        }
        accountInput();
        if (counted) {
            counted = false;
            server.counters.connections.decrementAndGet();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause, "connection " + id);
        LOG.debug("connection {} failed; closing", id, cause);
        ctx.close();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (channel.isWritable()) {
            if (outbound != null) {
                outbound.onWritable();
            }
            if (outputBlocked && !closing) {
                outputBlocked = false;
                pingsOut = 0;
                if (!paused) {
                    channel.config().setAutoRead(true);
                    parseInput();
                }
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    // ------------------------------------------------------------ input

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (closing) {
            in.release();
            return;
        }
        server.counters.bytesIn.add(in.readableBytes());
        lastInputNanos = System.nanoTime();
        stats.active(System.currentTimeMillis());
        cumulate(ctx.alloc(), in);
        if (!paused) {
            parseInput();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushIfNeeded();
        ctx.fireChannelReadComplete();
    }

    /**
     * Appends what was read to the incomplete input. Grows by a quarter of what has arrived, never
     * to a size a control line announces: a client that sends 1 MiB minus one byte holds about
     * 1 MiB, not more. Large incomplete input lives on the heap.
     */
    private void cumulate(ByteBufAllocator alloc, ByteBuf in) {
        if (cumulation == null) {
            cumulation = in;
        } else if (cumulation.refCnt() == 1 && !cumulation.isReadOnly()
                && cumulation.writableBytes() >= in.readableBytes()) {
            cumulation.writeBytes(in);
            in.release();
        } else {
            int needed = cumulation.readableBytes() + in.readableBytes();
            int capacity = needed + Math.max(needed >> 2, 4_096);
            ByteBuf grown = needed > HEAP_INPUT ? alloc.heapBuffer(capacity) : alloc.ioBuffer(capacity);
            grown.writeBytes(cumulation).writeBytes(in);
            cumulation.release();
            in.release();
            cumulation = grown;
        }
        accountInput();
    }

    /** Keeps the server-wide count of buffered input in step with this connection's buffer. */
    private void accountInput() {
        long capacity = cumulation == null ? 0 : cumulation.capacity();
        if (capacity != inputAccounted) {
            server.inputBuffered.addAndGet(capacity - inputAccounted);
            inputAccounted = capacity;
        }
        if ((cumulation == null || cumulation.readableBytes() <= SMALL_INPUT) && server.inputOverdraft.get() == this) {
            server.inputOverdraft.compareAndSet(this, null);
        }
    }

    /**
     * Whether this connection must wait before buffering more of a large incomplete message:
     * the server-wide input budget is spent and another connection holds the overdraft. A
     * holder whose client has sent nothing for {@link #OVERDRAFT_IDLE_NANOS} loses it to a
     * waiting connection (a client that holds back its last byte cannot stop everyone else's
     * large messages), while less than twice the budget is buffered: the hard bound.
     */
    private boolean mustWaitForInputBudget() {
        long buffered = server.inputBuffered.get();
        long budget = server.config.maxInputBuffer();
        if (cumulation == null || cumulation.readableBytes() <= SMALL_INPUT || closing || paused
                || buffered <= budget) {
            return false;
        }
        Object holder = server.inputOverdraft.get();
        if (holder == this) {
            return false;
        }
        if (holder == null) {
            return !server.inputOverdraft.compareAndSet(null, this);
        }
        boolean idle = holder instanceof NatsConnection h && System.nanoTime() - h.lastInputNanos > OVERDRAFT_IDLE_NANOS;
        return !(idle && buffered < 2 * budget && server.inputOverdraft.compareAndSet(holder, this));
    }

    private void parseInput() {
        if (cumulation != null && !outputBlocked) {
            parser.parse(cumulation, this);
            if (cumulation != null) {
                if (!cumulation.isReadable()) {
                    cumulation.release();
                    cumulation = null;
                } else {
                    cumulation.discardSomeReadBytes();
                }
            }
            accountInput();
        }
        if (mustWaitForInputBudget()) {
            // Many clients hold large incomplete messages: this one waits until others complete
            // theirs (its data is kept; TCP slows it meanwhile).
            pause(INPUT_PAUSE_NANOS);
        }
        flushIfNeeded();
        if (!channel.isWritable() && !closing && !outputBlocked) {
            // The client does not read what we answer (PONG, +OK, -ERR): stop reading its
            // input until it does, so that those answers cannot pile up without bound.
            outputBlocked = true;
            channel.config().setAutoRead(false);
        }
    }

    /** The broker was full, or a subscriber stalls: stop reading, retry later. */
    private void pause() {
        pause(PAUSE_NANOS);
    }

    /** Stops reading and retries after {@link #retryNanos}, which grows by {@code backoff} (up to its max). */
    private void pause(Backoff backoff) {
        if (!paused) {
            paused = true;
            channel.config().setAutoRead(false);
            server.counters.publishPauses.increment();
        }
        channel.eventLoop().schedule(this::resume, retryNanos, TimeUnit.NANOSECONDS);
        retryNanos = backoff.next(retryNanos);
    }

    private void resume() {
        if (closing) {
            return;
        }
        paused = false;
        // Its PONGs were unread while we did not read: do not hold that against the client.
        pingsOut = 0;
        parseInput();
        if (!paused && !outputBlocked) {
            retryNanos = PAUSE_NANOS.initial();
            channel.config().setAutoRead(true);
        }
    }

    // ------------------------------------------------------------ protocol operations

    @Override
    public boolean onConnect(String json) {
        ConnectOptions connect;
        try {
            connect = ConnectOptions.parse(json);
        } catch (IllegalArgumentException e) {
            LOG.debug("connection {}: bad CONNECT: {}", id, e.getMessage());
            protocolError(ProtocolError.INVALID_CLIENT_PROTOCOL);
            return true;
        }
        if (connect.noResponders() && !connect.headers()) {
            // As nats-server: the 503 status is a header, so no_responders needs headers.
            protocolError(ProtocolError.NO_RESPONDERS_REQUIRES_HEADERS);
            return true;
        }
        ServerConfig config = server.config;
        if (config.authRequired()) {
            AuthChain.Outcome outcome;
            if (pendingAuth != null) {
                if (!pendingAuth.outcome().isDone()) {
                    return false; // not answered yet: this CONNECT comes again once it is
                }
                outcome = pendingAuth.outcome().join();
                pendingAuth = null;
            } else {
                AuthChain.Attempt attempt = server.authChain.start(authRequest(connect));
                if (!attempt.outcome().isDone()) {
                    awaitOffLoop(attempt);
                    return false;
                }
                outcome = attempt.outcome().join();
            }
            Identity identity = outcome.identity();
            if (identity == null) {
                server.counters.authFailed(outcome.failure());
                LOG.info("connection {} from {}: authorization violation ({}: {})", id, channel.remoteAddress(),
                        outcome.failure().tag(), outcome.detail());
                closeWith(ProtocolError.AUTHORIZATION_VIOLATION);
                return true;
            }
            if (client == null || client.scope() != identity.scope()) {
                client = server.broker.newClient(identity.scope());
            }
            authenticatedAs = identity.name();
            permissions = identity.permissions() == null ? null : new ConnectionPermissions(identity.permissions());
            if (authTimer != null) {
                authTimer.cancel(false);
                authTimer = null;
            }
        }
        options = connect;
        connectReceived = true;
        if (outbound != null) {
            outbound.headersSupported(connect.headers());
        }
        ok();
        return true;
    }

    /** @return what the client presented: CONNECT's credentials, the nonce, the verified certificate chain */
    private AuthRequest authRequest(ConnectOptions connect) {
        SSLSession session = TlsPipeline.session(channel);
        List<X509Certificate> chain = new ArrayList<>();
        if (session != null) {
            try {
                for (Certificate certificate : session.getPeerCertificates()) {
                    if (certificate instanceof X509Certificate x509) {
                        chain.add(x509);
                    }
                }
            } catch (SSLPeerUnverifiedException e) {
                // no client certificate
            }
        }
        return new AuthRequest(connect.user(), connect.pass(), connect.authToken(), connect.nkey(),
                connect.sig(), nonce, List.copyOf(chain), channel.remoteAddress(), connect.name());
    }

    /**
     * Stops reading until the authenticators answer off the loop (a plug-in, a bcrypt check);
     * then the same CONNECT is parsed again on this connection's loop.
     */
    private void awaitOffLoop(AuthChain.Attempt attempt) {
        pendingAuth = attempt;
        channel.config().setAutoRead(false);
        attempt.outcome().whenComplete((outcome, error) -> channel.eventLoop().execute(() -> {
            if (closing) {
                return;
            }
            parseInput();
            if (!paused && !outputBlocked && !closing) {
                channel.config().setAutoRead(true);
            }
        }));
    }

    @Override
    public boolean onPub(String subject, String replyTo, ByteBuf payload) {
        if (!ready()) {
            return true;
        }
        if (!stalledBy.isEmpty() && stillStalled() || outOfMemoryBudget()) {
            return false;
        }
        if (subject.startsWith(FilterRequest.API_PREFIX)) {
            api(subject, replyTo, payload);
            return true;
        }
        RequestHandler extension = server.extensions.find(subject);
        if (extension != null) {
            extensionRequest(extension, subject, replyTo, null, payload);
            return true;
        }
        if (permissions != null && !publishPermitted(subject)) {
            return true;
        }
        int size = payload.readableBytes();
        if (size >= COPY_CHECK_BYTES && replyTo == null && nobodyCanReceive(subject)) {
            // As nats-server drops a message nobody subscribes to: no copy, no route, counted as received.
            received(size);
            ok();
            return true;
        }
        byte[] data = new byte[size];
        payload.getBytes(payload.readerIndex(), data);
        return permittedUnlessRetried(subject, publish(subject, replyTo, Headers.EMPTY, data, size));
    }

    /**
     * Checks a PUB against the user's permissions; refused: {@code -ERR} (no verbose {@code +OK},
     * as nats-server), counted, the message dropped, the connection kept.
     */
    private boolean publishPermitted(String subject) {
        if (permittedRetry != null) {
            boolean retried = permittedRetry.equals(subject);
            permittedRetry = null;
            if (retried) {
                return true;
            }
        }
        if (permissions.mayPublish(subject)) {
            return true;
        }
        permissionViolation("Publish", subject);
        return false;
    }

    /** A publish that must be retried keeps its permission (a reply grant is used once). */
    private boolean permittedUnlessRetried(String subject, boolean done) {
        if (!done && permissions != null) {
            permittedRetry = subject;
        }
        return done;
    }

    /**
     * @return whether no subscription could receive {@code subject} now and this client may
     *         publish there; {@code false} whenever the normal path must decide (odd subject,
     *         scope violation, any doubt)
     */
    private boolean nobodyCanReceive(String subject) {
        try {
            Client publisher = options.pedantic() ? client : client.verbatim();
            return !publisher.hasSubscribers(subject) && client.scope().includes(server.broker.scopeOf(subject));
        } catch (IllegalArgumentException notValid) {
            return false;
        }
    }

    @Override
    public boolean onHpub(String subject, String replyTo, ByteBuf headers, ByteBuf payload) {
        if (!ready()) {
            return true;
        }
        if (!options.headers()) {
            // As nats-server: a client that did not announce headers may not send them; closed without a word.
            server.counters.protocolErrors.increment();
            closeQuietly();
            return true;
        }
        if (!stalledBy.isEmpty() && stillStalled() || outOfMemoryBudget()) {
            return false;
        }
        if (subject.startsWith(FilterRequest.API_PREFIX)) {
            api(subject, replyTo, payload);
            return true;
        }
        RequestHandler extension = server.extensions.find(subject);
        if (extension != null) {
            extensionRequest(extension, subject, replyTo, headers, payload);
            return true;
        }
        if (permissions != null && !publishPermitted(subject)) {
            return true;
        }
        byte[] block = new byte[headers.readableBytes()];
        headers.getBytes(headers.readerIndex(), block);
        byte[] data = new byte[payload.readableBytes()];
        payload.getBytes(payload.readerIndex(), data);
        // Forwarded byte for byte (status line, spacing, empty blocks), as nats-server does.
        return permittedUnlessRetried(subject,
                publish(subject, replyTo, NatsHeaderBlock.wrap(block), data, block.length + data.length));
    }

    /** @param size header and payload bytes, as NATS counts {@code in_bytes} */
    private boolean publish(String subject, String replyTo, Headers headers, byte[] payload, int size) {
        // Not pedantic: subjects are taken as received (empty tokens, wildcards), as nats-server does.
        Client publisher = options.pedantic() ? client : client.verbatim();
        boolean acked = pubAcked;
        if (options.verbose() && !acked && wouldAccept(subject)) {
            // nats-server writes a PUB's +OK before the deliveries it causes (its own echo included).
            ok();
            acked = pubAcked = true;
        }
        try {
            if (replyTo != null && options.noResponders() && options.headers() && !publisher.hasSubscribers(subject)) {
                if (!mayPublish(subject) || !mayPublish(replyTo)) {
                    // A reply above the client's scope is refused here too, as when the PUB is routed.
                    permissionViolation("Publish", mayPublish(subject) ? replyTo : subject);
                } else {
                    noResponders(replyTo);
                }
                return true;
            }
            PUBLISHING.set(this);
            CompletableFuture<PublishAck> stored;
            try {
                stored = publisher.tryPublishWithAck(subject, replyTo, headers, payload);
            } finally {
                PUBLISHING.set(null);
            }
            if (stored == null) {
                pause(); // ring or store full; retried later: pubAcked stays, so the +OK is not sent twice
                return false;
            }
            if (!notStored(stored)) {
                durableStored(stored, subject, replyTo);
            }
        } catch (ScopeViolationException e) {
            pubAcked = false;
            permissionViolation("Publish", e.subject());
            return true;
        } catch (IllegalArgumentException e) {
            pubAcked = false;
            if (subjectsAccepted(subject, replyTo)) {
                // Not the subjects: a durable subject's store refused the message (larger than a
                // record may be). Nothing was published; the publisher learns it from its PubAck,
                // as from nats-server's stream, and the connection stays (no -ERR, which nats.go
                // would take as fatal).
                durableStored(CompletableFuture.failedFuture(new StorageException(e.getMessage(), e)), subject,
                        replyTo);
                if (!acked) {
                    ok();
                }
                return true;
            }
            protocolError(ProtocolError.INVALID_PUBLISH_SUBJECT);
            if (!acked) {
                ok(); // nats-server acknowledges the PUB in verbose mode all the same, after the -ERR
            }
            return true;
        } catch (IllegalStateException brokerClosed) {
            closeQuietly();
            return true;
        }
        pubAcked = false;
        received(size);
        if (!acked) {
            ok();
        }
        return true;
    }

    /** @return whether the broker takes these subjects from this client (pedantic: only valid literals) */
    private boolean subjectsAccepted(String subject, String replyTo) {
        try {
            if (options.pedantic()) {
                Subject.requireLiteral(subject);
            }
            if (replyTo != null) {
                Subject.requireLiteral(replyTo);
            }
            return true;
        } catch (IllegalArgumentException invalid) {
            return false;
        }
    }

    /** @return whether {@code ack} is the broker's answer for a subject that is not durable (the common case) */
    private static boolean notStored(CompletableFuture<PublishAck> ack) {
        return ack.isDone() && !ack.isCompletedExceptionally() && ack.getNow(null) == null;
    }

    /** A PUB to a durable subject was accepted: the PINGs after it and its PubAck wait for the store. */
    private void durableStored(CompletableFuture<PublishAck> stored, String subject, String replyTo) {
        server.counters.durablePublishes.increment();
        Client replies = null;
        if (replyTo != null) {
            // The broker's shared client (origin 0): a client with echo off gets its PubAck too.
            replies = server.broker.client(client.scope());
            if (!options.pedantic()) {
                replies = replies.verbatim();
            }
        }
        durableAcks.track(stored, subject, replyTo, replies);
    }

    /** @param size header and payload bytes of a message accepted from this client */
    private void received(int size) {
        server.counters.messagesIn.increment();
        server.counters.payloadBytesIn.add(size);
        stats.received(size);
    }

    /** Verbose mode only: whether a PUB to {@code subject} will be accepted (its +OK may then go first). */
    private boolean wouldAccept(String subject) {
        try {
            return client.scope().includes(server.broker.scopeOf(subject));
        } catch (IllegalArgumentException notValid) {
            return !options.pedantic();
        }
    }

    /**
     * Event loop of this connection (its PUB is being routed): {@code subscriber} has deliveries
     * queued and no drain scheduled; it is woken when this read is done ({@link #flushIfNeeded}).
     */
    void flushLater(Outbound subscriber) {
        toFlush.add(subscriber);
    }

    /** @return whether this client's scope may publish to {@code subject} (a subject that is not valid: yes, checked later) */
    private boolean mayPublish(String subject) {
        try {
            return client.scope().includes(server.broker.scopeOf(subject));
        } catch (IllegalArgumentException notValid) {
            return true;
        }
    }

    /** The current thread routes a PUB of this connection: it is told of stalling subscribers. */
    static NatsConnection currentPublisher() {
        return PUBLISHING.getIfExists();
    }

    /**
     * Event loop of this connection (its PUB is being routed): a subscriber it delivered to is
     * past its stall mark. The next PUB waits until that subscriber reads, or is cut off at its
     * write deadline (see {@link Outbound}).
     */
    void stalledBy(Outbound subscriber) {
        if (!stalledBy.contains(subscriber)) {
            stalledBy.add(subscriber);
        }
    }

    /**
     * @return whether the output waiting for all clients is past the server's budget; if so,
     *         stops reading for now, before the next message is copied (one budget for the heap:
     *         {@link ServerConfig#maxMemory()})
     */
    private boolean outOfMemoryBudget() {
        if (!server.outboundOverBudget()) {
            return false;
        }
        pause();
        return true;
    }

    /** @return whether a subscriber this connection fed still stalls; if so, stops reading for now */
    private boolean stillStalled() {
        stalledBy.removeIf(subscriber -> !subscriber.isStalling());
        if (stalledBy.isEmpty()) {
            return false;
        }
        pause();
        return true;
    }

    @Override
    public void onSub(String subject, String queueGroup, String sid) {
        if (!ready()) {
            return;
        }
        long cost = SubscriptionCost.of(subject, queueGroup);
        if (atSubscriptionLimit(cost, sid)
                && (lastPruneFreed || System.nanoTime() - lastPrune > PRUNE_INTERVAL_NANOS)) {
            // Auto-unsubscribed ones (UNSUB sid max) stay until a limit is reached: drop them
            // first; a scan that freed nothing is not repeated for PRUNE_INTERVAL, so a client
            // held at its limit cannot make every SUB a scan of its subscriptions.
            lastPrune = System.nanoTime();
            lastPruneFreed = false;
            for (Iterator<Subscription> it = subscriptions.values().iterator(); it.hasNext(); ) {
                Subscription done = it.next();
                if (!done.isActive()) {
                    it.remove();
                    release(done);
                    lastPruneFreed = true;
                }
            }
            filters.retainSids(subscriptions.keySet());
        }
        if (atSubscriptionLimit(cost, sid)) {
            if (subscriptions.size() >= server.config.maxSubscriptions()) {
                server.counters.protocolErrors.increment();
                sendError("maximum subscriptions exceeded");
            } else {
                server.counters.subscriptionsRefused.increment();
                sendError("maximum subscriptions exceeded: max_subscription_memory="
                        + server.config.maxSubscriptionMemory() + " bytes in use");
            }
            return;
        }
        if (permissions != null && !permissions.maySubscribe(subject, queueGroup)) {
            // As nats-server: the subscription is not made, the connection stays.
            permissionViolation("Subscription", queueGroup == null ? subject
                    : subject + "\" using queue \"" + queueGroup);
            return;
        }
        try {
            subscribe(sid, subject, queueGroup, filters.forSubscription(subject, queueGroup));
            filters.sidReleased(sid);
        } catch (ScopeViolationException e) {
            permissionViolation("Subscription", subject);
            return;
        } catch (IllegalArgumentException e) {
            protocolError(ProtocolError.INVALID_SUBJECT);
            return;
        } catch (IllegalStateException brokerClosed) {
            closeQuietly();
            return;
        }
        ok();
    }

    /**
     * Makes (or re-makes, for a sid in use) one subscription: delivered on the publishing thread,
     * straight into this connection's outbound (never waits).
     */
    private void subscribe(String sid, String subject, String queueGroup, MessageFilter filter) {
        SubscribeOptions subscribeOptions = NETWORK_SUBSCRIPTION.filter(filter);
        if (queueGroup != null) {
            subscribeOptions = subscribeOptions.queueGroup(queueGroup);
        }
        Subscription subscription = client.subscribe(subject, delivery(sid, subject), subscribeOptions);
        server.subscriptionBytes.addAndGet(SubscriptionCost.of(subject, queueGroup));
        Subscription previous = subscriptions.put(sid, subscription);
        server.counters.subscribes.increment();
        if (previous != null) {
            previous.unsubscribe();
            release(previous);
            server.counters.unsubscribes.increment();
        }
    }

    /**
     * @return whether one more subscription would pass {@code max_subscriptions} (this
     *         connection's count) or {@code max_subscription_memory} (every connection's heap: a
     *         check here, the charge in {@link #subscribe}, so other event loops may each add one
     *         subscription in between); a SUB that re-makes a sid in use adds no count
     */
    private boolean atSubscriptionLimit(long cost, String sid) {
        if (subscriptions.containsKey(sid)) {
            return false;
        }
        return subscriptions.size() >= server.config.maxSubscriptions()
                || server.subscriptionBytes.get() + cost > server.config.maxSubscriptionMemory();
    }

    /**
     * Notes a subscription that ends by itself after its last message ({@code UNSUB sid max}) and,
     * once such notes have doubled since the last look, drops those that ended: a client that
     * subscribes, auto-unsubscribes and publishes in a loop would otherwise keep every ended
     * subscription (and its charge) until the connection closes. Amortized O(1) per UNSUB.
     */
    private void autoUnsubscribing(String sid) {
        endingSids.add(sid);
        if (endingSids.size() < endingSidsLookAt) {
            return;
        }
        for (Iterator<String> it = endingSids.iterator(); it.hasNext(); ) {
            String ending = it.next();
            Subscription subscription = subscriptions.get(ending);
            if (subscription == null) {
                it.remove();
            } else if (!subscription.isActive()) {
                it.remove();
                subscriptions.remove(ending);
                filters.sidReleased(ending);
                release(subscription);
                server.counters.unsubscribes.increment();
            }
        }
        endingSidsLookAt = Math.max(MIN_ENDING_LOOK, 2 * endingSids.size());
    }

    /** Gives back the heap charged for a subscription this connection no longer holds. */
    private void release(Subscription subscription) {
        server.subscriptionBytes.addAndGet(-SubscriptionCost.of(subscription.pattern(),
                subscription.options().queueGroup()));
    }

    /**
     * A PUB to the server's API ({@code $RB.API.}): answered on its reply subject, never routed.
     * The API subject is a publish, checked against the publish permissions as any PUB (as
     * nats-server checks {@code $JS.API.}); the answer is a publish to the reply subject on the
     * client's behalf, so the reply must be one the client may publish to (its scope and its
     * permissions). Refused: {@code -ERR}, counted, nothing applied, the connection kept. The
     * request is counted as received; a bad one gets an error reply naming what is wrong.
     */
    private void api(String subject, String replyTo, ByteBuf payload) {
        if (permissions != null && !publishPermitted(subject) || replyTo != null && !replyPermitted(replyTo)) {
            return;
        }
        received(payload.readableBytes());
        byte[] answer = FilterApi.answer(subject, payload, filters);
        ok();
        if (replyTo != null) {
            // The broker's shared client (origin 0): a client with echo off gets its answer too.
            Client replies = server.broker.client(client.scope());
            try {
                (options.pedantic() ? replies : replies.verbatim()).publish(replyTo, answer);
            } catch (ScopeViolationException e) {
                permissionViolation("Publish", e.subject());
            } catch (IllegalArgumentException e) {
                protocolError(ProtocolError.INVALID_PUBLISH_SUBJECT);
            }
        }
    }

    /**
     * A PUB or HPUB to an extension's subject ({@link io.ringbus.server.spi}): the same checks as
     * {@link #api} (the subject against the publish permissions and scope, the reply subject as a
     * publish), then a copy handed to the extension's handler, never routed.
     */
    private void extensionRequest(RequestHandler handler, String subject, String replyTo, ByteBuf headers,
                                  ByteBuf payload) {
        if (permissions != null && !publishPermitted(subject) || replyTo != null && !replyPermitted(replyTo)) {
            return;
        }
        if (!mayPublish(subject)) {
            permissionViolation("Publish", subject);
            return;
        }
        byte[] block = null;
        if (headers != null) {
            block = new byte[headers.readableBytes()];
            headers.getBytes(headers.readerIndex(), block);
        }
        byte[] data = new byte[payload.readableBytes()];
        payload.getBytes(payload.readerIndex(), data);
        received((block == null ? 0 : block.length) + data.length);
        ok();
        if (requester == null) {
            Channel ch = channel;
            requester = new ConnectionRequest.Sender(client.scope(), authenticatedAs, id, permissions, server.broker,
                    refused -> ch.eventLoop().execute(() -> permissionViolation("Publish", refused)));
        }
        try {
            handler.handle(new ConnectionRequest(subject, replyTo, block, data, requester, server.broker));
        } catch (RuntimeException e) {
            server.counters.extensionErrors.increment();
            LOG.warn("extension handler for {} failed: {}", subject, e.toString(), e);
        }
    }

    /**
     * @return whether the client may publish to {@code replyTo} (scope, then permissions; never
     *         the API's own subjects, which are not routed); if not, {@code -ERR}
     */
    private boolean replyPermitted(String replyTo) {
        if (replyTo.startsWith(FilterRequest.API_PREFIX) || !mayPublish(replyTo)
                || permissions != null && !permissions.mayPublish(replyTo)) {
            permissionViolation("Publish", replyTo);
            return false;
        }
        return true;
    }

    /** The handler of one network subscription: runs on a broker event loop, never blocks. */
    private MessageHandler delivery(String sid, String pattern) {
        byte[] sidBytes = SubjectCodec.encode(sid);
        Outbound out = outbound;
        long self = client.id();
        ConnectionPermissions granted = permissions;
        if (granted != null && (granted.tracksReplies() || granted.filtersDeliveries(pattern))) {
            return permittedDelivery(granted, granted.filtersDeliveries(pattern), out, sidBytes, self);
        }
        if (options.echo()) {
            return message -> out.enqueue(message, sidBytes);
        }
        return message -> {
            if (message.origin() != self) {
                out.enqueue(message, sidBytes);
            }
        };
    }

    /**
     * A delivery under permissions: a subject a subscribe deny entry names is never delivered
     * (counted), and a reply subject delivered is one the client may answer ({@code allow_responses}).
     */
    private MessageHandler permittedDelivery(ConnectionPermissions granted, boolean filter, Outbound out,
                                             byte[] sidBytes, long self) {
        boolean echo = options.echo();
        ServerCounters counters = server.counters;
        return message -> {
            if (!echo && message.origin() == self) {
                return;
            }
            if (filter && !granted.deliverable(message.subject())) {
                counters.permissionFiltered.increment();
                return;
            }
            if (message.replyTo() != null && granted.tracksReplies()) {
                granted.delivered(message.replyTo());
            }
            out.enqueue(message, sidBytes);
        };
    }

    @Override
    public void onUnsub(String sid, long maxMessages) {
        if (!ready()) {
            return;
        }
        Subscription subscription = subscriptions.get(sid);
        if (subscription != null) {
            if (maxMessages > 0) {
                subscription.unsubscribeAfter(maxMessages);
                filters.unsubscribeAfter(sid, maxMessages);
                autoUnsubscribing(sid);
            } else {
                filters.sidReleased(sid);
                subscriptions.remove(sid);
                subscription.unsubscribe();
                release(subscription);
                server.counters.unsubscribes.increment();
            }
        }
        ok();
    }

    @Override
    public void onPing() {
        if (closing) {
            return;
        }
        if (durableAcks != null && durableAcks.holdPong()) {
            // A durability barrier: answered once every earlier PUB to a durable subject is stored.
            return;
        }
        pong();
    }

    /** Event loop: answers one PING. */
    private void pong() {
        if (closing) {
            return;
        }
        // Behind the deliveries queued for this client so far: every delivery its earlier PUBs
        // caused to network subscribers is queued by now (they run on this thread), so a client
        // that uses PING/PONG as a flush barrier sees its own messages first, as with nats-server.
        if (outbound != null) {
            outbound.enqueuePong();
            return;
        }
        channel.write(NatsProtocol.PONG_BUFFER.duplicate(), channel.voidPromise());
        needsFlush = true;
    }

    @Override
    public void onPong() {
        pingsOut = 0;
        if (pingSentNanos != 0) {
            stats.rtt(System.nanoTime() - pingSentNanos);
            pingSentNanos = 0;
        }
    }

    @Override
    public void onError(ProtocolError error, String detail) {
        LOG.debug("connection {}: {} ({})", id, error.text(), detail);
        protocolError(error);
    }

    // ------------------------------------------------------------ replies to the client

    /** @return whether operations other than CONNECT/PING/PONG may run; sends the error if not */
    private boolean ready() {
        if (closing) {
            return false;
        }
        if (client == null || (server.config.authRequired() && !connectReceived)) {
            server.counters.authFailed(AuthFailure.NOT_AUTHENTICATED);
            closeWith(ProtocolError.AUTHORIZATION_VIOLATION);
            return false;
        }
        return true;
    }

    private void ok() {
        if (options.verbose() && !closing) {
            reply(NatsProtocol.OK);
        }
    }

    /** A protocol reply, in order with the deliveries queued for this client (see {@link Outbound#enqueueControl}). */
    private void reply(byte[] bytes) {
        if (outbound != null) {
            outbound.enqueueControl(bytes);
        } else {
            channel.write(Unpooled.wrappedBuffer(bytes), channel.voidPromise());
            needsFlush = true;
        }
    }

    private void permissionViolation(String what, String subject) {
        server.counters.permissionViolations.increment();
        sendError("Permissions Violation for " + what + " to \"" + subject + "\"");
    }

    private void protocolError(ProtocolError error) {
        server.counters.protocolErrors.increment();
        if (error.closes()) {
            closeWith(error);
        } else {
            sendError(error.text());
        }
    }

    private void sendError(String text) {
        if (!closing) {
            reply(NatsProtocol.err(text));
        }
    }

    private void closeWith(ProtocolError error) {
        if (closing) {
            return;
        }
        closing = true;
        parser.close();
        channel.config().setAutoRead(false);
        channel.writeAndFlush(Unpooled.wrappedBuffer(NatsProtocol.err(error.text())))
                .addListener(f -> channel.close());
        // A client that does not read would hold the write, and the socket, forever.
        channel.eventLoop().schedule(() -> channel.close(), CLOSE_DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void closeQuietly() {
        closing = true;
        parser.close();
        channel.close();
    }

    private void flushIfNeeded() {
        if (!toFlush.isEmpty()) {
            for (int i = 0; i < toFlush.size(); i++) {
                toFlush.get(i).scheduleDrain();
            }
            toFlush.clear();
        }
        if (needsFlush) {
            needsFlush = false;
            channel.flush();
        }
    }

    /** NATS no-responders: a 503 status message to the requester's reply subscription. */
    private void noResponders(String replyTo) {
        for (Iterator<Map.Entry<String, Subscription>> it = subscriptions.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Subscription> entry = it.next();
            if (entry.getValue().isActive() && Subject.matchesVerbatim(entry.getValue().pattern(), replyTo)) {
                reply(Outbound.encodeStatusMessage(replyTo, SubjectCodec.encode(entry.getKey()), "503"));
                return;
            }
        }
    }

    // ------------------------------------------------------------ monitoring

    /** Any thread: this connection's subscriptions that still receive messages. */
    long activeSubscriptions() {
        long active = 0;
        for (Subscription subscription : subscriptions.values()) {
            if (subscription.isActive()) {
                active++;
            }
        }
        return active;
    }

    /**
     * Any thread (the monitor's): this connection as {@code /connz} shows it. Reads racily what
     * the event loop writes; see {@link ConnectionStats}.
     */
    ConnectionInfo info(boolean withSubscriptions) {
        Client current = client;
        return stats.info(id, channel, outbound == null ? 0 : outbound.pending(), options, subscriptions,
                withSubscriptions, current == null ? server.config.noAuthScope() : current.scope(), authenticatedAs);
    }

    // ------------------------------------------------------------ timers and slow consumers

    private void ping() {
        if (closing || paused || outputBlocked) {
            // We are not reading the socket now, so its PONGs cannot arrive.
            return;
        }
        if (pingsOut >= server.config.maxPingsOut()) {
            server.counters.staleConnections.increment();
            closeWith(ProtocolError.STALE_CONNECTION);
            return;
        }
        pingsOut++;
        pingSentNanos = System.nanoTime();
        channel.writeAndFlush(NatsProtocol.PING_BUFFER.duplicate(), channel.voidPromise());
    }

    private void authTimeout() {
        if (!connectReceived && !closing) {
            server.counters.authFailed(AuthFailure.AUTH_TIMEOUT);
            closeWith(ProtocolError.AUTHORIZATION_TIMEOUT);
        }
    }

    /** Called on a broker dispatch thread when the outbound buffer passed maxPending. */
    private void slowConsumer() {
        server.counters.slowConsumers.increment();
        channel.eventLoop().execute(() -> {
            LOG.warn("connection {} from {}: slow consumer (more than {} bytes pending); closing", id,
                    channel.remoteAddress(), server.config.effectiveMaxPending());
            for (Subscription subscription : subscriptions.values()) {
                subscription.unsubscribe();
            }
            closeWith(ProtocolError.SLOW_CONSUMER);
        });
    }
}
