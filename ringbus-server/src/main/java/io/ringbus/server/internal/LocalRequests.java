package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.ringbus.core.Client;
import io.ringbus.core.ScopeViolationException;
import io.ringbus.server.spi.RequestHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PUBs the server answers itself and never routes: its own API ({@code $RB.API.}, content
 * filters) and the subjects of extensions ({@link io.ringbus.server.spi}, JetStream's API). The
 * subject is a publish, checked against the client's publish permissions as any PUB (as
 * nats-server checks {@code $JS.API.}); the answer is a publish to the reply subject on the
 * client's behalf, so the reply must be one the client may publish to (its scope and its
 * permissions). Refused: {@code -ERR}, counted, nothing applied, the connection kept.
 *
 * <p>Event loop of the connection only.
 */
final class LocalRequests {
    private static final Logger LOG = LoggerFactory.getLogger(LocalRequests.class);

    private final NatsSession session;
    private final ServerContext server;
    private final ConnectionFilters filters;
    /** This connection as extensions see it, made at its first extension request. */
    private ConnectionRequest.Sender requester;

    LocalRequests(NatsSession session, ConnectionFilters filters) {
        this.session = session;
        this.server = session.server;
        this.filters = filters;
    }

    /** @return whether a PUB to {@code subject} is a request the server answers itself */
    boolean answers(String subject) {
        // Asked for every PUB: an application subject fails on its first character, in both checks.
        return !subject.isEmpty() && subject.charAt(0) == FilterRequest.API_PREFIX.charAt(0)
                && subject.startsWith(FilterRequest.API_PREFIX) || server.extensions.find(subject) != null;
    }

    /** One request ({@link #answers} said so); {@code headersLength} 0 for a PUB. */
    void onRequest(String subject, String replyTo, ByteBuf in, int headersAt, int headersLength, int payloadLength) {
        if (subject.startsWith(FilterRequest.API_PREFIX)) {
            api(subject, replyTo, in, headersAt + headersLength, payloadLength);
        } else {
            extensionRequest(server.extensions.find(subject), subject, replyTo, in, headersAt, headersLength,
                    payloadLength);
        }
    }

    /** @return whether the client may publish to {@code subject}; if not, {@code -ERR} */
    private boolean publishPermitted(String subject) {
        if (session.permissions == null || session.permissions.mayPublish(subject)) {
            return true;
        }
        session.permissionViolation("Publish", subject);
        return false;
    }

    /**
     * A PUB to the server's API ({@code $RB.API.}): answered on its reply subject. The request is
     * counted as received; a bad one gets an error reply naming what is wrong.
     */
    private void api(String subject, String replyTo, ByteBuf in, int payloadAt, int payloadLength) {
        if (!publishPermitted(subject) || replyTo != null && !replyPermitted(replyTo)) {
            return;
        }
        session.received(payloadLength);
        byte[] answer = FilterApi.answer(subject, in.slice(payloadAt, payloadLength), filters);
        session.ok();
        if (replyTo != null) {
            // The broker's shared client (origin 0): a client with echo off gets its answer too.
            Client replies = server.broker.client(session.client.scope());
            try {
                (session.options.pedantic() ? replies : replies.verbatim()).publish(replyTo, answer);
            } catch (ScopeViolationException e) {
                session.permissionViolation("Publish", e.subject());
            } catch (IllegalArgumentException e) {
                session.protocolError(ProtocolError.INVALID_PUBLISH_SUBJECT);
            }
        }
    }

    /**
     * A PUB or HPUB to an extension's subject: the same checks as {@link #api} (and the subject
     * against the client's scope), then a copy handed to the extension's handler.
     */
    private void extensionRequest(RequestHandler handler, String subject, String replyTo, ByteBuf in, int headersAt,
                                  int headersLength, int payloadLength) {
        if (!publishPermitted(subject) || replyTo != null && !replyPermitted(replyTo)) {
            return;
        }
        if (!session.mayPublish(subject)) {
            session.permissionViolation("Publish", subject);
            return;
        }
        byte[] block = null;
        if (headersLength > 0) {
            block = new byte[headersLength];
            in.getBytes(headersAt, block);
        }
        byte[] data = new byte[payloadLength];
        in.getBytes(headersAt + headersLength, data);
        session.received(headersLength + payloadLength);
        session.ok();
        if (requester == null) {
            NatsSession s = session;
            requester = new ConnectionRequest.Sender(s.client.scope(), s.authenticatedAs, s.id, s.permissions,
                    server.broker, refused -> s.channel.eventLoop().execute(() -> s.permissionViolation("Publish",
                            refused)));
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
        if (replyTo.startsWith(FilterRequest.API_PREFIX) || !session.mayPublish(replyTo)
                || session.permissions != null && !session.permissions.mayPublish(replyTo)) {
            session.permissionViolation("Publish", replyTo);
            return false;
        }
        return true;
    }
}
