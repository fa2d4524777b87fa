package io.ringbus.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A view of the broker limited to one {@link Scope}: it publishes, subscribes and requests only
 * on subjects at or below that scope. Thread-safe; any thread may publish concurrently.
 *
 * <p>Ordering: messages published by one thread reach each subscriber in publish order.
 * Publishing never takes a lock and, on the event-loop path, never allocates.
 */
public interface Client {
    /** @return the scope of this client */
    Scope scope();

    /**
     * @return this client's id, carried by every message it publishes as {@link Message#origin()};
     *         0 for the broker and its shared views ({@link Broker#client(Scope)}), unique for
     *         each {@link Broker#newClient(Scope)}
     */
    long id();

    /**
     * Tells whether a message published to {@code subject} now would reach at least one
     * subscriber, or would be stored (used for NATS no-responders). A durable subject counts as
     * received by its store, as a subject captured by a JetStream stream is, whose PubAck answers
     * a request. A PUBLIC or FEDERATED subject counts as received while a federation link is up:
     * another node may have subscribers (a request then learns there are none from NATS).
     *
     * @param subject a subject without wildcards
     * @return {@code true} when some subscription could receive it, the subject is durable, or the
     *         federation may carry it to other nodes
     * @throws IllegalArgumentException when the subject is malformed
     */
    boolean hasSubscribers(String subject);

    /**
     * Publishes a message, waiting while the ring is full (backpressure).
     *
     * @param subject a subject without wildcards
     * @param payload the payload, possibly {@code null}
     * @throws IllegalArgumentException when the subject is {@code null}, malformed or has wildcards
     * @throws ScopeViolationException  when the subject's scope is above this client's
     * @throws IllegalStateException    when the broker is closed, or when called from an
     *                                  event-loop handler while the ring is full (waiting there
     *                                  would deadlock the loop)
     */
    default void publish(String subject, Object payload) {
        publish(subject, null, null, payload);
    }

    /**
     * Publishes a message with a reply subject and headers, waiting while the ring is full.
     *
     * @param subject a subject without wildcards
     * @param replyTo a subject without wildcards, or {@code null}; like the subject, it must be at
     *                or below this client's scope (a responder will publish there)
     * @param headers headers, or {@code null} for none
     * @param payload the payload, possibly {@code null}
     * @throws IllegalArgumentException when a subject is malformed
     * @throws ScopeViolationException  when the subject's or the reply subject's scope is above
     *                                  this client's ({@link ScopeViolationException#subject()} names which)
     * @throws IllegalStateException    when the broker is closed (see {@link #publish(String, Object)})
     */
    void publish(String subject, String replyTo, Headers headers, Object payload);

    /**
     * Publishes a message only if the ring has room now.
     *
     * @param subject a subject without wildcards
     * @param payload the payload, possibly {@code null}
     * @return {@code false}, with nothing published, when the ring is full
     * @throws IllegalArgumentException when the subject is malformed
     * @throws ScopeViolationException  when the subject's scope is above this client's
     * @throws IllegalStateException    when the broker is closed
     */
    default boolean tryPublish(String subject, Object payload) {
        return tryPublish(subject, null, null, payload);
    }

    /**
     * Publishes a message with a reply subject and headers only if the ring has room now.
     *
     * @param subject a subject without wildcards
     * @param replyTo a subject without wildcards, or {@code null}
     * @param headers headers, or {@code null} for none
     * @param payload the payload, possibly {@code null}
     * @return {@code false}, with nothing published, when the ring is full
     * @throws IllegalArgumentException when a subject is malformed
     * @throws ScopeViolationException  when the subject's scope is above this client's
     * @throws IllegalStateException    when the broker is closed
     */
    boolean tryPublish(String subject, String replyTo, Headers headers, Object payload);

    /**
     * Publishes like {@link #tryPublish(String, String, Headers, Object)} and tells when the message
     * is stored: for a durable subject the future completes with the store's ack once the message is
     * durable (JetStream's PubAck), or exceptionally with {@link StorageException}; for any other
     * subject it is already complete, with {@code null}. Never waits: for protocol fronts that answer
     * a publish only once it is stored.
     *
     * @param subject a subject without wildcards
     * @param replyTo a subject without wildcards, or {@code null}
     * @param headers headers, or {@code null}; a {@code Nats-Msg-Id} header de-duplicates within the
     *                stream's duplicate window
     * @param payload the payload; a {@code byte[]} or {@code String} for a durable subject
     * @return {@code null}, with nothing published, when the ring or the store has no room now
     * @throws IllegalArgumentException when a subject is malformed, or a durable subject's payload is
     *                                  neither bytes nor a string
     * @throws ScopeViolationException  when the subject's scope is above this client's
     * @throws IllegalStateException    when the broker is closed
     */
    CompletableFuture<PublishAck> tryPublishWithAck(String subject, String replyTo, Headers headers, Object payload);

    /**
     * Publishes like {@link #tryPublishWithAck} a message the caller lends for the length of this
     * call: a view of the caller's own buffer, reused for its next publish. Subscriptions whose
     * handler is a {@link ViewHandler} ({@link ExecutionMode#PUBLISHER} mode) get the view itself,
     * on this thread; every other handler, the error handler, the store and the federation get
     * what {@link Message#payload()} and {@link Message#copy()} return, read during this call.
     * Subscription filters ({@link MessageFilter#test}) are given the view itself, as their
     * contract allows: valid during the test only. So a publish whose subscribers all read views
     * copies nothing and makes no object.
     *
     * <p>The view's {@link Message#origin()} must be this client's {@link #id()}; its accessors
     * must return the same values until this method returns, and {@code payload()} and
     * {@code copy()} objects the caller no longer changes.
     *
     * @param view the message, valid until this method returns
     * @return as {@link #tryPublishWithAck}
     * @throws IllegalArgumentException when a subject is malformed, or the view's origin is not this client's id
     * @throws ScopeViolationException  when the subject's scope is above this client's
     * @throws IllegalStateException    when the broker is closed
     */
    default CompletableFuture<PublishAck> tryPublishView(Message view) {
        return tryPublishWithAck(view.subject(), view.replyTo(), view.headers(), view.payload());
    }

    /**
     * Subscribes with {@link SubscribeOptions#defaults()}.
     *
     * @param pattern a subject, or a pattern with {@code *} and {@code >} wildcards
     * @param handler receives the messages
     * @return the subscription
     * @throws IllegalArgumentException when the pattern is {@code null} or malformed
     * @throws ScopeViolationException  when a subject without wildcards is above this client's scope
     */
    default Subscription subscribe(String pattern, MessageHandler handler) {
        return subscribe(pattern, handler, SubscribeOptions.defaults());
    }

    /**
     * Subscribes to a subject or wildcard pattern.
     *
     * <p>A subject without wildcards above this client's scope is refused. A wildcard pattern is
     * accepted, and receives only the matching subjects at or below this client's scope: a
     * PUBLIC {@code >} never sees a PRIVATE message.
     *
     * @param pattern a subject, or a pattern with {@code *} and {@code >} wildcards
     * @param handler receives the messages
     * @param options mode, ordering, buffer, overflow policy and queue group
     * @return the subscription
     * @throws IllegalArgumentException when the pattern is malformed or the options inconsistent
     * @throws ScopeViolationException  when a subject without wildcards is above this client's scope
     * @throws IllegalStateException    when the broker is closed
     */
    Subscription subscribe(String pattern, MessageHandler handler, SubscribeOptions options);

    /**
     * Sends a request and returns the first reply.
     *
     * @param subject a subject without wildcards
     * @param payload the payload
     * @param timeout how long to wait for the reply
     * @return a future completed with a detached reply; completed exceptionally with
     *         {@link NoRespondersException} at once when no subscriber can receive the subject,
     *         or with {@link java.util.concurrent.TimeoutException} after {@code timeout}
     * @throws IllegalArgumentException when the subject is malformed or the timeout not positive
     * @throws ScopeViolationException  when the subject's scope is above this client's
     * @throws IllegalStateException    when the broker is closed
     */
    default CompletableFuture<Message> request(String subject, Object payload, Duration timeout) {
        return request(subject, null, payload, timeout);
    }

    /**
     * Sends a request with headers and returns the first reply.
     *
     * @param subject a subject without wildcards
     * @param headers headers, or {@code null}
     * @param payload the payload
     * @param timeout how long to wait for the reply
     * @return see {@link #request(String, Object, Duration)}
     * @throws IllegalArgumentException when the subject is malformed or the timeout not positive
     * @throws ScopeViolationException  when the subject's scope is above this client's
     * @throws IllegalStateException    when the broker is closed
     */
    CompletableFuture<Message> request(String subject, Headers headers, Object payload, Duration timeout);

    /**
     * Returns a view of this client, with the same scope and id, that takes published subjects
     * as received rather than validating them, for protocol fronts that must behave like
     * nats-server with a client that is not pedantic: a subject with empty tokens
     * ({@code orders..created}) or wildcard tokens ({@code a.*}) is published, not refused, and
     * its tokens are matched literally (a {@code *} token only by subscriptions with a wildcard
     * there). {@link #hasSubscribers} of the view accepts the same subjects. Everything else
     * (scopes, subscriptions, requests) is unchanged.
     *
     * @return the verbatim view; this client when it is one already
     */
    Client verbatim();
}
