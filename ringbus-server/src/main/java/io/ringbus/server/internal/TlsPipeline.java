package io.ringbus.server.internal;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.ringbus.server.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLSession;
import javax.net.ssl.X509TrustManager;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * TLS on the client port, as nats-server does it: by default the server sends INFO (with
 * {@code tls_required}) in plaintext and the client then starts the handshake, so the
 * {@link SslHandler} goes to the front of the pipeline right after INFO is written
 * ({@link #startAfterInfo}); with {@code handshake_first} it is there from the start
 * ({@link #installFirst}) and INFO, like everything else, is written once the handshake is done
 * (the handler holds writes until then).
 *
 * <p>A client that does not complete the handshake within {@code tls_timeout}, sends plaintext,
 * or fails the handshake (no or a bad client certificate, no common protocol) is closed and
 * counted per reason in {@link ServerCounters}. With {@code tls.verify}, a completed handshake, full
 * or resumed, has its client certificates checked again ({@link ClientCertificateCheck}) before
 * anything the client sent is read. A completed handshake leaves its
 * {@link SSLSession} (peer certificates included) on the channel: {@link #session(Channel)}.
 *
 * <p>The certificate files are polled every {@value #POLL_SECONDS} s on a thread of their own
 * and a changed set is loaded for new connections; {@link #reload()} does it at once (SIGHUP).
 */
public final class TlsPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TlsPipeline.class);
    /** How often the certificate files are checked for a change. */
    static final int POLL_SECONDS = 2;
    private static final AttributeKey<SSLSession> SESSION = AttributeKey.valueOf("ringbus.tls.session");
    private static final String SSL_HANDLER = "tls";
    private static final String OUTCOME_HANDLER = "tls-outcome";

    private final ReloadingSslContext context;
    private final ServerCounters counters;
    private final long timeoutMillis;
    private final boolean handshakeFirst;
    private final ScheduledExecutorService poller;

    /**
     * Loads the certificate and starts watching the files.
     *
     * @param config   the server's settings, TLS configured
     * @param counters where failures are counted
     * @throws IllegalArgumentException naming the files when they cannot be used
     */
    TlsPipeline(ServerConfig config, ServerCounters counters) {
        this.context = new ReloadingSslContext(config);
        LOG.info("TLS provider: {}", context.provider().description());
        this.counters = counters;
        this.timeoutMillis = config.tlsTimeout().toMillis();
        this.handshakeFirst = config.tlsHandshakeFirst();
        this.poller = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("ringbus-tls-reload").unstarted(r));
        poller.scheduleWithFixedDelay(this::poll, POLL_SECONDS, POLL_SECONDS, TimeUnit.SECONDS);
    }

    /** @return the TLS implementation in use, e.g. {@code OpenSSL (BoringSSL)}, for {@code /varz} */
    public String provider() {
        return context.provider().description();
    }

    /**
     * On a new channel's event loop, before it is active: with {@code handshake_first}, puts
     * the TLS handler in front, so that nothing is read or written in plaintext.
     */
    void installFirst(Channel channel) {
        if (handshakeFirst) {
            install(channel.pipeline());
        }
    }

    /** On the event loop, right after INFO was written: without {@code handshake_first}, starts TLS. */
    void startAfterInfo(Channel channel) {
        if (!handshakeFirst) {
            install(channel.pipeline());
        }
    }

    private void install(ChannelPipeline pipeline) {
        ReloadingSslContext.Built built = context.current();
        SslHandler handler = built.context().newHandler(pipeline.channel().alloc());
        handler.setHandshakeTimeoutMillis(timeoutMillis);
        pipeline.addFirst(OUTCOME_HANDLER, new HandshakeOutcome(built.clients()));
        pipeline.addFirst(SSL_HANDLER, handler);
    }

    /**
     * Any thread: a server-side TLS handler with the current certificates, for another port that
     * serves the same material (the monitor's HTTPS).
     */
    SslHandler newServerHandler(ByteBufAllocator allocator) {
        return context.current().context().newHandler(allocator);
    }

    /**
     * Any thread: the TLS session of a connection whose handshake completed.
     *
     * @return the session, or {@code null} before the handshake or without TLS
     */
    static SSLSession session(Channel channel) {
        return channel.attr(SESSION).get();
    }

    /**
     * Rebuilds the TLS context from the files now; established connections keep theirs.
     *
     * @return whether the new files were loaded (otherwise the old context stays, and the
     *         error is logged)
     */
    public boolean reload() {
        return context.reload();
    }

    private void poll() {
        try {
            context.reloadIfChanged();
        } catch (RuntimeException e) {
            LOG.warn("TLS: checking the certificate files failed", e);
        }
    }

    /** Stops watching the files. */
    @Override
    public void close() {
        poller.shutdownNow();
    }

    /**
     * Counts and logs the outcome of each handshake; keeps the session of a completed one. With
     * {@code tls.verify} the client's certificates are checked again ({@link ClientCertificateCheck}):
     * a session that fails is closed, counted as a failed handshake, and nothing it sent is read.
     */
    private final class HandshakeOutcome extends ChannelInboundHandlerAdapter {
        /** The CA's trust manager with {@code tls.verify}, else {@code null}. */
        private final X509TrustManager clients;
        private boolean refused;

        HandshakeOutcome(X509TrustManager clients) {
            this.clients = clients;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (refused) {
                ReferenceCountUtil.release(msg);
            } else {
                ctx.fireChannelRead(msg);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof SslHandshakeCompletionEvent done) {
                Channel channel = ctx.channel();
                if (done.isSuccess()) {
                    SSLSession session = ((SslHandler) ctx.pipeline().get(SSL_HANDLER)).engine().getSession();
                    String refusal = clients == null ? null : ClientCertificateCheck.refusal(session, clients);
                    if (refusal != null) {
                        refused = true;
                        counters.tlsHandshakeFailures.increment();
                        LOG.info("TLS: client {} refused after the handshake: {}", channel.remoteAddress(), refusal);
                        ctx.close();
                        return;
                    }
                    channel.attr(SESSION).set(session);
                } else {
                    Throwable cause = done.cause();
                    if (cause instanceof SslHandshakeTimeoutException) {
                        counters.tlsHandshakeTimeouts.increment();
                    } else if (cause instanceof NotSslRecordException) {
                        counters.tlsPlaintextClients.increment();
                    } else {
                        counters.tlsHandshakeFailures.increment();
                    }
                    // The SslHandler closes the channel; the reason is the client's business.
                    LOG.info("TLS handshake with {} failed: {}", channel.remoteAddress(), cause.toString());
                }
                ctx.pipeline().remove(this);
            }
            ctx.fireUserEventTriggered(event);
        }
    }
}
