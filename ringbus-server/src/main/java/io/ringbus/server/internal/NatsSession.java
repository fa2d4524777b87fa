package io.ringbus.server.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.ringbus.core.Client;
import io.ringbus.server.AuthFailure;

import java.util.concurrent.TimeUnit;

/**
 * One client connection's state that its handlers share (who the client is, what it announced,
 * whether the connection is closing) and the replies they write to it: {@code +OK}, {@code -ERR},
 * and closing with or without a word. Event loop of the connection only, but for the fields the
 * monitor reads (volatile).
 *
 * <p>Replies go through the connection's {@link Outbound}, in order with the deliveries queued
 * for the client; before it exists (a connection refused at once) straight to the channel.
 */
final class NatsSession {
    /** How long a closing -ERR may take to write before the socket is closed anyway. */
    private static final long CLOSE_DEADLINE_MILLIS = 1_000;

    final ServerContext server;
    final long id;
    final Channel channel;
    final ConnectionStats stats = new ConnectionStats();
    /** Set when the connection is counted; null for one refused at once. */
    Outbound outbound;
    /** Publishes to durable subjects not yet stored, and the PONGs that wait for them. */
    DurableAcks durableAcks;
    /** What CONNECT announced (defaults until it arrives). */
    volatile ConnectOptions options = ConnectOptions.DEFAULTS;
    /** The broker client with the connection's scope; null until authenticated when auth is required. */
    volatile Client client;
    /** The authenticated user's or token's permissions; {@code null}: only its scope restricts it. */
    ConnectionPermissions permissions;
    /** Who the client authenticated as ({@code /connz authorized_user}), or {@code null}. */
    volatile String authenticatedAs;
    boolean connectReceived;
    boolean closing;
    /** A protocol reply was written straight to the channel and awaits the end of the read. */
    private boolean needsFlush;
    /** Stops the parser when the connection closes (set by the input framer). */
    private Runnable stopInput = () -> { };

    NatsSession(ServerContext server, Channel channel) {
        this.server = server;
        this.id = server.clientIds.incrementAndGet();
        this.channel = channel;
    }

    /** @param stop stops the parser, so that no operation after the closing one runs */
    void onClose(Runnable stop) {
        this.stopInput = stop;
    }

    /**
     * Admits an operation other than CONNECT, PING and PONG: refused (the connection closes with
     * Authorization Violation) while the client has not authenticated, or once it is closing.
     *
     * @return whether the operation may run
     */
    boolean admit() {
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

    /** {@code +OK}, in verbose mode. */
    void ok() {
        if (options.verbose() && !closing) {
            reply(NatsProtocol.OK);
        }
    }

    /** A protocol reply, in order with the deliveries queued for this client (see {@link Outbound#enqueueControl}). */
    void reply(byte[] bytes) {
        if (outbound != null) {
            outbound.enqueueControl(bytes);
        } else {
            channel.write(Unpooled.wrappedBuffer(bytes), channel.voidPromise());
            needsFlush = true;
        }
    }

    /** {@code -ERR 'Permissions Violation for <what> to "<subject>"'}, counted; the connection stays. */
    void permissionViolation(String what, String subject) {
        server.counters.permissionViolations.increment();
        sendError("Permissions Violation for " + what + " to \"" + subject + "\"");
    }

    /** The protocol's error, counted: sent, and the connection closed where the protocol says so. */
    void protocolError(ProtocolError error) {
        server.counters.protocolErrors.increment();
        if (error.closes()) {
            closeWith(error);
        } else {
            sendError(error.text());
        }
    }

    /** {@code -ERR '<text>'}; the connection stays. */
    void sendError(String text) {
        if (!closing) {
            reply(NatsProtocol.err(text));
        }
    }

    /** Sends the error, then closes: at once when written, at the latest after {@link #CLOSE_DEADLINE_MILLIS}. */
    void closeWith(ProtocolError error) {
        if (closing) {
            return;
        }
        closing = true;
        stopInput.run();
        channel.config().setAutoRead(false);
        channel.writeAndFlush(Unpooled.wrappedBuffer(NatsProtocol.err(error.text())))
                .addListener(f -> channel.close());
        // A client that does not read would hold the write, and the socket, forever.
        channel.eventLoop().schedule(() -> channel.close(), CLOSE_DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Closes without a word (as nats-server does for some violations). */
    void closeQuietly() {
        closing = true;
        stopInput.run();
        channel.close();
    }

    /** End of a read: flushes replies written straight to the channel. */
    void flushReplies() {
        if (needsFlush) {
            needsFlush = false;
            channel.flush();
        }
    }

    /** @param size header and payload bytes of a message accepted from this client */
    void received(int size) {
        server.counters.messagesIn.increment();
        server.counters.payloadBytesIn.add(size);
        stats.received(size);
    }

    /** @return whether this client's scope may publish to {@code subject} (a subject that is not valid: yes, checked later) */
    boolean mayPublish(String subject) {
        try {
            return client.scope().includes(server.broker.scopeOf(subject));
        } catch (IllegalArgumentException notValid) {
            return true;
        }
    }

    /** @return the broker client to publish with: subjects as received unless pedantic, as nats-server takes them */
    Client publishingClient() {
        return options.pedantic() ? client : client.verbatim();
    }
}
