package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.ringbus.core.Client;
import io.ringbus.server.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;

/**
 * One NATS client connection: the last handler of its pipeline. It owns the connection's life
 * (counted, refused past {@code max_connections}, closed) and hands each operation the
 * {@link InputFramer} decodes to the handler of that concern:
 *
 * <pre>
 * socket -&gt; [TLS] -&gt; InputFramer (framing, input budget, when to read)
 *                  -&gt; NatsConnection -&gt; Handshake         CONNECT, authentication
 *                                    -&gt; PublishPath       PUB, HPUB (a view lent to the broker)
 *                                         -&gt; LocalRequests   $RB.API and extension subjects
 *                                    -&gt; SubscriptionTable SUB, UNSUB, limits, deliveries
 *                                    -&gt; KeepAlive         PING, PONG
 * broker deliveries -&gt; Delivery -&gt; Outbound -&gt; socket
 * </pre>
 *
 * <p>Delivery path: a network subscription is a {@link io.ringbus.core.ExecutionMode#PUBLISHER}
 * subscription, so the publishing connection's own event loop routes each PUB through the
 * broker's index and copies it into each subscriber's {@link Outbound}; the subscriber's event
 * loop writes it out. No shared dispatch thread is on the way, so connections on different event
 * loops never wait for each other, and a connection's pipelined SUB, PUB, UNSUB take effect in
 * order. The state the handlers share, and the replies they write, are a {@link NatsSession}.
 */
final class NatsConnection extends ChannelInboundHandlerAdapter implements ProtocolHandler {
    private static final Logger LOG = LoggerFactory.getLogger(NatsConnection.class);

    private final NatsSession session;
    private final InputFramer framer;
    private final Handshake handshake;
    private final SubscriptionTable subscriptions;
    private final PublishPath publishes;
    private final KeepAlive keepAlive;
    private boolean counted;

    private NatsConnection(ServerContext server, io.netty.channel.Channel channel) {
        this.session = new NatsSession(server, channel);
        this.subscriptions = new SubscriptionTable(session);
        this.framer = new InputFramer(session, this, this::readDone, this::readingResumed);
        this.keepAlive = new KeepAlive(session, framer::reading);
        this.handshake = new Handshake(session, framer);
        this.publishes = new PublishPath(session, framer, subscriptions);
    }

    /** Adds a client connection's handlers to its pipeline (after TLS, if any). */
    static void install(ServerContext server, ChannelPipeline pipeline) {
        NatsConnection connection = new NatsConnection(server, pipeline.channel());
        pipeline.addLast(connection.framer, connection);
    }

    // ------------------------------------------------------------ lifecycle

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ServerContext server = session.server;
        ServerConfig config = server.config;
        ServerCounters counters = server.counters;
        if (counters.connections.incrementAndGet() > config.maxConnections()) {
            counters.connections.decrementAndGet();
            counters.rejectedConnections.increment();
            LOG.warn("refusing {}: maxConnections={} reached", ctx.channel().remoteAddress(), config.maxConnections());
            // As nats-server: INFO first, so that the client reads the -ERR as the server's answer.
            ctx.channel().write(Unpooled.copiedBuffer(server.info(session.id, null), StandardCharsets.UTF_8),
                    ctx.channel().voidPromise());
            session.closeWith(ProtocolError.MAX_CONNECTIONS);
            return;
        }
        counted = true;
        counters.totalConnections.increment();
        server.connections.put(session.id, this);
        session.outbound = new Outbound(ctx.channel(), counters, session.stats, config.effectiveMaxPending(),
                config.writeDeadline().toNanos(), server.outboundBudget, this::slowConsumer);
        session.durableAcks = new DurableAcks(ctx.channel().eventLoop(), counters, keepAlive::pong, session.id);
        handshake.start();
        keepAlive.start();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        session.closing = true;
        readDone(); // subscribers this connection queued deliveries for must still be woken
        keepAlive.stop();
        handshake.stop();
        subscriptions.close();
        session.server.connections.remove(session.id, this);
        if (session.durableAcks != null) {
            session.durableAcks.close();
        }
        if (session.outbound != null) {
            session.outbound.close();
        }
        if (counted) {
            counted = false;
            session.server.counters.connections.decrementAndGet();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause, "connection " + session.id);
        LOG.debug("connection {} failed; closing", session.id, cause);
        ctx.close();
    }

    /** Reading goes on after a stop: the PONGs unread meanwhile are not held against the client. */
    private void readingResumed() {
        keepAlive.readingResumed();
    }

    /** End of a read (or of a parse after a pause): wakes the subscribers fed, flushes replies. */
    private void readDone() {
        publishes.wakeSubscribers();
        session.flushReplies();
    }

    // ------------------------------------------------------------ operations, to their handlers

    @Override
    public boolean onConnect(String json) {
        return handshake.onConnect(json);
    }

    @Override
    public boolean onPub(String subject, String replyTo, ByteBuf in, int payloadAt, int payloadLength) {
        return !session.admit() || publishes.onPublish(subject, replyTo, in, payloadAt, 0, payloadLength);
    }

    @Override
    public boolean onHpub(String subject, String replyTo, ByteBuf in, int headersAt, int headersLength,
                          int payloadLength) {
        if (!session.admit()) {
            return true;
        }
        if (!session.options.headers()) {
            // As nats-server: a client that did not announce headers may not send them; closed without a word.
            session.server.counters.protocolErrors.increment();
            session.closeQuietly();
            return true;
        }
        return publishes.onPublish(subject, replyTo, in, headersAt, headersLength, payloadLength);
    }

    @Override
    public void onSub(String subject, String queueGroup, String sid) {
        if (session.admit()) {
            subscriptions.onSub(subject, queueGroup, sid);
        }
    }

    @Override
    public void onUnsub(String sid, long maxMessages) {
        if (session.admit()) {
            subscriptions.onUnsub(sid, maxMessages);
        }
    }

    @Override
    public void onPing() {
        keepAlive.onPing();
    }

    @Override
    public void onPong() {
        keepAlive.onPong();
    }

    @Override
    public void onError(ProtocolError error, String detail) {
        LOG.debug("connection {}: {} ({})", session.id, error.text(), detail);
        session.protocolError(error);
    }

    // ------------------------------------------------------------ monitoring and slow consumers

    /** Any thread: this connection's subscriptions that still receive messages. */
    long activeSubscriptions() {
        return subscriptions.active();
    }

    /**
     * Any thread (the monitor's): this connection as {@code /connz} shows it. Reads racily what
     * the event loop writes; see {@link ConnectionStats}.
     */
    ConnectionInfo info(boolean withSubscriptions) {
        Client current = session.client;
        Outbound outbound = session.outbound;
        return session.stats.info(session.id, session.channel, outbound == null ? 0 : outbound.pending(),
                session.options, subscriptions.subscriptions, withSubscriptions,
                current == null ? session.server.config.noAuthScope() : current.scope(), session.authenticatedAs);
    }

    /** Called on a publishing thread when the outbound buffer passed maxPending. */
    private void slowConsumer() {
        session.server.counters.slowConsumers.increment();
        session.channel.eventLoop().execute(() -> {
            LOG.warn("connection {} from {}: slow consumer (more than {} bytes pending); closing", session.id,
                    session.channel.remoteAddress(), session.server.config.effectiveMaxPending());
            subscriptions.stopAll();
            session.closeWith(ProtocolError.SLOW_CONSUMER);
        });
    }
}
