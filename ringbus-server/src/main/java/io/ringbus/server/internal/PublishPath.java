package io.ringbus.server.internal;

import io.netty.buffer.ByteBuf;
import io.ringbus.core.Client;
import io.ringbus.core.PublishAck;
import io.ringbus.core.ScopeViolationException;
import io.ringbus.core.StorageException;
import io.ringbus.core.Subject;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A connection's PUB and HPUB. The common case, a plain subject the client may publish to, is
 * one call: the publish is lent to the broker as a {@link WireMessage}, a view of the input
 * buffer ({@link Client#tryPublishView}); network subscribers copy it from there into their
 * output. Nothing is allocated on the way. The rest is off that path: requests the server
 * answers itself ({@link LocalRequests}), permissions, no-responders, durable subjects (whose PubAck waits for
 * the store: {@link DurableAcks}), verbose {@code +OK} in nats-server's order, and refusals.
 *
 * <p>Backpressure: a publish the broker refuses for now (ring or store full), or one that would
 * feed a subscriber past its stall mark, or any while the server's output budget is spent, stops
 * the connection's reading ({@link InputFramer#pause}) and is retried; nothing is dropped. The
 * subscribers this connection's publishes fed are woken once at the end of each read.
 *
 * <p>Event loop of the connection only.
 */
final class PublishPath implements Publisher {
    private final NatsSession session;
    private final ServerContext server;
    private final InputFramer framer;
    private final SubscriptionTable subscriptions;
    /** PUBs the server answers itself, never routed. */
    private final LocalRequests requests;
    /** The view lent for each publish; remade when the client (its id) changes at CONNECT. */
    private WireMessage view;
    /** A PUB already permitted that waits to be retried (its reply grant must not be used twice). */
    private String permittedRetry;
    /** The +OK of the PUB being retried (after a pause) was sent already. */
    private boolean pubAcked;
    /** Subscribers this connection's publishes queued deliveries for, to wake at the end of the read. */
    private final List<Outbound> toFlush = new ArrayList<>(4);
    /** Stalling subscribers this connection's publishes reached; it reads no more until they are not. */
    private final List<Outbound> stalledBy = new ArrayList<>(2);

    PublishPath(NatsSession session, InputFramer framer, SubscriptionTable subscriptions) {
        this.session = session;
        this.server = session.server;
        this.framer = framer;
        this.subscriptions = subscriptions;
        this.requests = new LocalRequests(session, subscriptions.filters);
    }

    /** {@code PUB} or {@code HPUB} ({@code headersLength} 0 for a PUB); see {@link ProtocolHandler#onPub}. */
    boolean onPublish(String subject, String replyTo, ByteBuf in, int headersAt, int headersLength,
                      int payloadLength) {
        if (!stalledBy.isEmpty() && stillStalled() || outOfMemoryBudget()) {
            return false;
        }
        if (requests.answers(subject)) {
            requests.onRequest(subject, replyTo, in, headersAt, headersLength, payloadLength);
            return true;
        }
        if (session.permissions != null && !publishPermitted(subject)) {
            return true;
        }
        boolean done = publish(view(subject, replyTo, in, headersAt, headersLength, payloadLength),
                headersLength + payloadLength);
        if (!done && session.permissions != null) {
            permittedRetry = subject; // a publish that must be retried keeps its permission
        }
        return done;
    }

    private WireMessage view(String subject, String replyTo, ByteBuf in, int headersAt, int headersLength,
                             int payloadLength) {
        WireMessage v = view;
        if (v == null || v.origin() != session.client.id()) {
            v = view = new WireMessage(session.client.id(), this);
        }
        return v.set(subject, replyTo, in, headersAt, headersLength, payloadLength);
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
        if (session.permissions.mayPublish(subject)) {
            return true;
        }
        session.permissionViolation("Publish", subject);
        return false;
    }

    /**
     * @param size header and payload bytes, as NATS counts {@code in_bytes}
     * @return {@code false} when the broker had no room: retried later
     */
    private boolean publish(WireMessage message, int size) {
        try {
            CompletableFuture<PublishAck> stored;
            if (!session.options.verbose() && message.replyTo() == null) {
                stored = session.publishingClient().tryPublishView(message);
            } else {
                stored = publishSlowPath(message);
            }
            if (stored == null) {
                framer.pause(); // ring or store full; retried later: pubAcked stays, so the +OK is not sent twice
                return false;
            }
            if (!notStored(stored)) {
                durableStored(stored, message.subject(), message.replyTo());
            }
        } catch (ScopeViolationException e) {
            pubAcked = false;
            session.permissionViolation("Publish", e.subject());
            return true;
        } catch (IllegalArgumentException e) {
            return refused(message, e);
        } catch (IllegalStateException brokerClosed) {
            session.closeQuietly();
            return true;
        } finally {
            message.clear();
        }
        boolean acked = pubAcked;
        pubAcked = false;
        session.received(size);
        if (!acked) {
            session.ok();
        }
        return true;
    }

    /** A request (reply subject) or a verbose client: no-responders and the +OK before the deliveries. */
    private CompletableFuture<PublishAck> publishSlowPath(WireMessage message) {
        String subject = message.subject();
        String replyTo = message.replyTo();
        Client publisher = session.publishingClient();
        if (session.options.verbose() && !pubAcked && wouldAccept(subject)) {
            // nats-server writes a PUB's +OK before the deliveries it causes (its own echo included).
            session.ok();
            pubAcked = true;
        }
        ConnectOptions options = session.options;
        if (replyTo != null && options.noResponders() && options.headers() && !publisher.hasSubscribers(subject)) {
            if (!session.mayPublish(subject) || !session.mayPublish(replyTo)) {
                // A reply above the client's scope is refused here too, as when the PUB is routed.
                session.permissionViolation("Publish", session.mayPublish(subject) ? replyTo : subject);
            } else {
                noResponders(replyTo);
            }
            return NOT_STORED;
        }
        return publisher.tryPublishView(message);
    }

    /** The subject of a PUB or its reply subject was refused (or the store refused the message). */
    private boolean refused(WireMessage message, IllegalArgumentException e) {
        boolean acked = pubAcked;
        pubAcked = false;
        if (subjectsAccepted(message.subject(), message.replyTo())) {
            // Not the subjects: a durable subject's store refused the message (larger than a
            // record may be). Nothing was published; the publisher learns it from its PubAck,
            // as from nats-server's stream, and the connection stays (no -ERR, which nats.go
            // would take as fatal).
            durableStored(CompletableFuture.failedFuture(new StorageException(e.getMessage(), e)), message.subject(),
                    message.replyTo());
            if (!acked) {
                session.ok();
            }
            return true;
        }
        session.protocolError(ProtocolError.INVALID_PUBLISH_SUBJECT);
        if (!acked) {
            session.ok(); // nats-server acknowledges the PUB in verbose mode all the same, after the -ERR
        }
        return true;
    }

    /** The answer for a publish that nothing stores (no-responders answered it). */
    private static final CompletableFuture<PublishAck> NOT_STORED = CompletableFuture.completedFuture(null);

    /** @return whether {@code ack} is the broker's answer for a subject that is not durable (the common case) */
    private static boolean notStored(CompletableFuture<PublishAck> ack) {
        return ack.isDone() && !ack.isCompletedExceptionally() && ack.getNow(null) == null;
    }

    /** @return whether the broker takes these subjects from this client (pedantic: only valid literals) */
    private boolean subjectsAccepted(String subject, String replyTo) {
        try {
            if (session.options.pedantic()) {
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

    /** A PUB to a durable subject was accepted: the PINGs after it and its PubAck wait for the store. */
    private void durableStored(CompletableFuture<PublishAck> stored, String subject, String replyTo) {
        server.counters.durablePublishes.increment();
        Client replies = null;
        if (replyTo != null) {
            // The broker's shared client (origin 0): a client with echo off gets its PubAck too.
            replies = server.broker.client(session.client.scope());
            if (!session.options.pedantic()) {
                replies = replies.verbatim();
            }
        }
        session.durableAcks.track(stored, subject, replyTo, replies);
    }

    /** Verbose mode only: whether a PUB to {@code subject} will be accepted (its +OK may then go first). */
    private boolean wouldAccept(String subject) {
        try {
            return session.client.scope().includes(server.broker.scopeOf(subject));
        } catch (IllegalArgumentException notValid) {
            return !session.options.pedantic();
        }
    }

    /** NATS no-responders: a 503 status message to the requester's reply subscription. */
    private void noResponders(String replyTo) {
        String sid = subscriptions.sidReceiving(replyTo);
        if (sid != null) {
            session.reply(StatusMessage.encode(replyTo, SubjectCodec.encode(sid), "503"));
        }
    }

    @Override
    public void flushLater(Outbound subscriber) {
        toFlush.add(subscriber);
    }

    @Override
    public void stalledBy(Outbound subscriber) {
        if (!stalledBy.contains(subscriber)) {
            stalledBy.add(subscriber);
        }
    }

    /** End of a read: wakes the subscribers this read's publishes fed. */
    void wakeSubscribers() {
        if (!toFlush.isEmpty()) {
            for (int i = 0; i < toFlush.size(); i++) {
                toFlush.get(i).scheduleDrain();
            }
            toFlush.clear();
        }
    }

    /**
     * @return whether the output waiting for all clients is past the server's budget; if so,
     *         stops reading for now, before the next message is taken (one budget for the heap)
     */
    private boolean outOfMemoryBudget() {
        if (!server.outboundOverBudget()) {
            return false;
        }
        framer.pause();
        return true;
    }

    /** @return whether a subscriber this connection fed still stalls; if so, stops reading for now */
    private boolean stillStalled() {
        stalledBy.removeIf(subscriber -> !subscriber.isStalling());
        if (stalledBy.isEmpty()) {
            return false;
        }
        framer.pause();
        return true;
    }
}
