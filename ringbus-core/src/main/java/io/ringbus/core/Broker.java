package io.ringbus.core;

import java.time.Duration;
import java.util.Optional;

/**
 * The in-process broker: a {@link Client} of scope {@link Scope#ROOT} that also registers subject
 * scopes, hands out scoped clients, reports statistics and owns every thread it runs.
 *
 * <p>Create one with {@link #builder()}; close it to drain and stop.
 */
public interface Broker extends Client, AutoCloseable {
    /** @return a builder with the documented defaults */
    static BrokerBuilder builder() {
        return new BrokerBuilder();
    }

    /**
     * Sets the scope of every subject matching {@code pattern}. A subject takes the scope of the
     * most specific registered pattern it matches (literal tokens beat {@code *}, which beats
     * {@code >}; longer beats shorter), else the broker's default scope. Registering the same
     * pattern again replaces its scope.
     *
     * @param pattern a subject or wildcard pattern
     * @param scope   its scope
     * @throws IllegalArgumentException when the pattern is malformed
     */
    void registerSubject(String pattern, Scope scope);

    /**
     * Sets the scope of every subject matching {@code pattern} and whether its messages are stored.
     * {@link Durability#DURABLE} opens (or creates) a stream named after the pattern
     * ({@link StreamConfig#of(String)}) in the broker's {@link Storage}: from then on
     * {@code publish} to a matching subject returns once the message is durable, and durable
     * subscriptions ({@link SubscribeOptions#durable(String)}) read it at least once. Live
     * subscribers receive it as before. {@link Durability#MEMORY} is
     * {@link #registerSubject(String, Scope)}.
     *
     * @param pattern    a subject or wildcard pattern
     * @param scope      its scope
     * @param durability whether its messages are stored
     * @throws IllegalArgumentException when the pattern is malformed or overlaps another durable pattern
     * @throws StorageException         when the store cannot open the stream
     */
    void registerSubject(String pattern, Scope scope, Durability durability);

    /**
     * Registers a durable stream with its own name and limits: as
     * {@link #registerSubject(String, Scope, Durability)} with {@link Durability#DURABLE}, for
     * {@code config.subjects()}.
     *
     * @param config the stream
     * @param scope  the scope of its subjects
     * @return the open stream (for its {@link StoredStream#info()})
     * @throws IllegalArgumentException when the pattern overlaps another durable pattern
     * @throws StorageException         when the store cannot open the stream
     */
    StoredStream registerStream(StreamConfig config, Scope scope);

    /**
     * Registers a durable stream and leaves the scopes of its subjects as they are (a stream
     * created through a network API): the stream's scope, which {@link #streamScope} reports, is
     * the highest scope a subject it stores can have ({@link #maxScopeOf}).
     *
     * @param config the stream
     * @return the open stream
     * @throws IllegalArgumentException when the pattern overlaps another durable pattern
     * @throws StorageException         when the store cannot open the stream
     */
    StoredStream registerStream(StreamConfig config);

    /**
     * Changes a registered stream's configuration (limits, pattern) and keeps its messages; see
     * {@link Storage#reconfigure}.
     *
     * @param config the new configuration; its name is the stream's
     * @return the stream, open with it
     * @throws IllegalArgumentException      when no stream of that name is registered, or the new pattern
     *                                       overlaps another durable pattern
     * @throws UnsupportedOperationException when the store cannot change a stream
     * @throws StorageException              when the store cannot open it again
     */
    StoredStream updateStream(StreamConfig config);

    /**
     * Unregisters a durable stream and deletes it from the store ({@link Storage#delete}): its
     * subjects are no longer stored.
     *
     * @param name the stream
     * @return whether it was registered or stored
     * @throws UnsupportedOperationException when the store cannot delete streams
     * @throws StorageException              when its files cannot be deleted
     */
    boolean deleteStream(String name);

    /** @return the registered durable streams, in registration order */
    java.util.List<StoredStream> streams();

    /** @return the broker's store, when it has one (given to the builder, or opened for a durable subject) */
    Optional<Storage> storage();

    /**
     * Returns the highest scope a subject matching {@code pattern} can have: the default scope
     * and that of every registered pattern some subject of {@code pattern} also matches.
     *
     * @param pattern a subject or wildcard pattern
     * @return that scope (an upper bound)
     * @throws IllegalArgumentException when the pattern is malformed
     */
    Scope maxScopeOf(String pattern);

    /**
     * Returns the scope a subject has now.
     *
     * @param subject a subject without wildcards
     * @return its scope
     * @throws IllegalArgumentException when the subject is malformed
     */
    Scope scopeOf(String subject);

    /**
     * Returns the scope a durable stream was registered with: the scope of the data it holds, which
     * its dead letters carry and which a monitor's viewer must have to see it.
     *
     * @param stream the stream's name
     * @return its scope, or empty when no durable stream of that name is registered
     */
    Optional<Scope> streamScope(String stream);

    /**
     * Returns a view limited to {@code scope}, for code that must not see more (for example a
     * network front for untrusted clients). The view shares this broker's ring and subscribers.
     *
     * @param scope the most the view may see
     * @return the client
     */
    Client client(Scope scope);

    /**
     * Publishes data of {@code dataScope} on {@code subject} on the broker's own behalf (a stream's
     * message handed to a consumer's inbox or deliver subject): only subscribers of that scope or
     * higher receive it, whatever the subject's own scope, so a PUBLIC subscriber to {@code _INBOX.>}
     * never sees a PRIVATE stream's messages. The reply subject is passed on as is (it is the
     * broker's, not a request's: no reply scope is remembered for it). Waits while the ring is full.
     *
     * @param dataScope the scope of the data
     * @param subject   a literal subject
     * @param replyTo   a reply subject, or {@code null}
     * @param headers   headers, or {@code null}
     * @param payload   the payload
     * @throws UnsupportedOperationException when this broker cannot (the default)
     */
    default void publishAtScope(Scope dataScope, String subject, String replyTo, Headers headers, Object payload) {
        throw new UnsupportedOperationException("this broker cannot publish at a scope");
    }

    /**
     * Returns a new client limited to {@code scope} with an identity of its own: the messages it
     * publishes carry its {@link Client#id()} as {@link Message#origin()}, so its own
     * subscriptions can recognise them (NATS {@code echo: false}). Cheap: one small object.
     *
     * @param scope the most the client may see
     * @return the client
     */
    Client newClient(Scope scope);

    /**
     * Runs {@code action} once every message accepted before this call has been handed to its
     * subscribers (handled, for EVENT_LOOP subscribers; buffered, for WORKER and VIRTUAL ones),
     * on the event loop that passes it last. Used by the network front to answer a NATS PING
     * only after the deliveries caused by the client's earlier PUBs. Never waits.
     *
     * @param action what to run; must not block
     * @return {@code false}, with nothing scheduled, when the ring is full
     * @throws IllegalStateException when the broker is closed
     */
    boolean tryFence(Runnable action);

    /** @return a consistent-enough snapshot of the counters; cheap, may be called from any thread */
    BrokerStats stats();

    /** @return {@code true} once {@link #close()} has begun */
    boolean isClosed();

    /**
     * Stops accepting publishes and subscriptions, delivers what was accepted within the
     * builder's shutdown timeout, then stops every thread the broker started. Messages still
     * undelivered after the timeout are counted as {@link DropReason#SHUTDOWN}. Idempotent.
     */
    @Override
    void close();

    /**
     * Like {@link #close()} with an explicit drain timeout.
     *
     * @param drainTimeout how long to wait for accepted messages to be handled
     */
    void close(Duration drainTimeout);
}
