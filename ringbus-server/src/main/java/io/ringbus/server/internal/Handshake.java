package io.ringbus.server.internal;

import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.ScheduledFuture;
import io.ringbus.server.AuthFailure;
import io.ringbus.server.AuthRequest;
import io.ringbus.server.Identity;
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
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The start of a client connection: INFO, then CONNECT and authentication. Without
 * authentication the client may publish before its CONNECT (as with nats-server); with it,
 * nothing but CONNECT, PING and PONG is accepted until the client has authenticated, within
 * {@link ServerConfig#authTimeout()}. A check that takes time (a plug-in, bcrypt) runs off the
 * loop while the connection stops reading; the same CONNECT is then parsed again. Once the client
 * is authenticated, the timer and the pending check are gone: only a second CONNECT comes here.
 *
 * <p>Event loop of the connection only.
 */
final class Handshake {
    private static final Logger LOG = LoggerFactory.getLogger(Handshake.class);

    private final NatsSession session;
    private final InputFramer framer;
    private ScheduledFuture<?> authTimer;
    /** The authentication awaited off the loop, or null; abandoned if the client leaves. */
    private AuthChain.Attempt pendingAuth;
    /** The NKEY nonce sent in this connection's INFO, or null when no NKEY user is configured. */
    private String nonce;

    Handshake(NatsSession session, InputFramer framer) {
        this.session = session;
        this.framer = framer;
    }

    /** The connection is counted: INFO, TLS, and the client (now, or once it has authenticated). */
    void start() {
        ServerContext server = session.server;
        ServerConfig config = server.config;
        String ip = session.channel.remoteAddress() instanceof InetSocketAddress address && address.getAddress() != null
                ? address.getAddress().getHostAddress() : null;
        nonce = config.nkeys().isEmpty() ? null : Nkeys.nonce();
        session.channel.writeAndFlush(Unpooled.copiedBuffer(server.info(session.id, ip, nonce), StandardCharsets.UTF_8));
        if (server.tls != null) {
            server.tls.startAfterInfo(session.channel); // NATS clients start TLS once they have read INFO
        }
        if (config.authRequired()) {
            authTimer = session.channel.eventLoop().schedule(this::authTimeout, config.authTimeout().toNanos(),
                    TimeUnit.NANOSECONDS);
        } else {
            session.client = server.broker.newClient(config.noAuthScope());
        }
    }

    /** The connection is gone: no timer, and a bcrypt check not yet started never runs. */
    void stop() {
        done();
        if (pendingAuth != null) {
            pendingAuth.ticket().abandon();
            pendingAuth = null;
        }
    }

    private void done() {
        if (authTimer != null) {
            authTimer.cancel(false);
            authTimer = null;
        }
    }

    /** {@code CONNECT}; see {@link ProtocolHandler#onConnect}. */
    boolean onConnect(String json) {
        ConnectOptions connect;
        try {
            connect = ConnectOptions.parse(json);
        } catch (IllegalArgumentException e) {
            LOG.debug("connection {}: bad CONNECT: {}", session.id, e.getMessage());
            session.protocolError(ProtocolError.INVALID_CLIENT_PROTOCOL);
            return true;
        }
        if (connect.noResponders() && !connect.headers()) {
            // As nats-server: the 503 status is a header, so no_responders needs headers.
            session.protocolError(ProtocolError.NO_RESPONDERS_REQUIRES_HEADERS);
            return true;
        }
        if (session.server.config.authRequired() && !authenticate(connect)) {
            return !waiting();
        }
        session.options = connect;
        session.connectReceived = true;
        if (session.outbound != null) {
            session.outbound.headersSupported(connect.headers());
        }
        session.ok();
        return true;
    }

    /** @return whether the last {@link #authenticate} left a check running off the loop */
    private boolean waiting() {
        return pendingAuth != null;
    }

    /**
     * @return whether the client authenticated; if not, either it was refused (and the
     *         connection is closing) or the check goes on off the loop ({@link #waiting()})
     */
    private boolean authenticate(ConnectOptions connect) {
        ServerContext server = session.server;
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
            LOG.info("connection {} from {}: authorization violation ({}: {})", session.id,
                    session.channel.remoteAddress(), outcome.failure().tag(), outcome.detail());
            session.closeWith(ProtocolError.AUTHORIZATION_VIOLATION);
            return false;
        }
        if (session.client == null || session.client.scope() != identity.scope()) {
            session.client = server.broker.newClient(identity.scope());
        }
        session.authenticatedAs = identity.name();
        session.permissions = identity.permissions() == null ? null : new ConnectionPermissions(identity.permissions());
        done();
        return true;
    }

    /** @return what the client presented: CONNECT's credentials, the nonce, the verified certificate chain */
    private AuthRequest authRequest(ConnectOptions connect) {
        SSLSession tls = TlsPipeline.session(session.channel);
        List<X509Certificate> chain = new ArrayList<>();
        if (tls != null) {
            try {
                for (Certificate certificate : tls.getPeerCertificates()) {
                    if (certificate instanceof X509Certificate x509) {
                        chain.add(x509);
                    }
                }
            } catch (SSLPeerUnverifiedException e) {
                // no client certificate
            }
        }
        return new AuthRequest(connect.user(), connect.pass(), connect.authToken(), connect.nkey(),
                connect.sig(), nonce, List.copyOf(chain), session.channel.remoteAddress(), connect.name());
    }

    /** Stops reading until the authenticators answer off the loop; then the same CONNECT is parsed again. */
    private void awaitOffLoop(AuthChain.Attempt attempt) {
        pendingAuth = attempt;
        framer.holdForAuthentication();
        attempt.outcome().whenComplete((outcome, error) -> session.channel.eventLoop().execute(framer::authenticated));
    }

    private void authTimeout() {
        if (!session.connectReceived && !session.closing) {
            session.server.counters.authFailed(AuthFailure.AUTH_TIMEOUT);
            session.closeWith(ProtocolError.AUTHORIZATION_TIMEOUT);
        }
    }
}
