package io.ringbus.spring;

import io.ringbus.core.Client;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.spring.internal.TransactionDeferral;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.springframework.util.ClassUtils;

/**
 * Publishes and requests through a broker client, aware of Spring transactions.
 *
 * <p>{@code publish} called while a Spring transaction synchronization is active (inside
 * {@code @Transactional}, a {@code TransactionTemplate}) is deferred: the message is published
 * after the transaction commits, in the order of the calls, and never when it rolls back. A
 * message deferred this way is held in memory only: if the process dies between commit and
 * publish it is lost (for a guarantee, write it through the outbox). Outside a transaction, and
 * without spring-tx on the classpath, {@code publish} publishes at once.
 *
 * <p>A subject matching {@code ringbus.outbox.guaranteed-subjects} is not deferred but appended to
 * the transactional outbox in the caller's transaction ({@link OutboxPublisher}), and delivered by
 * the relay after commit, at least once; outside a transaction such a publish is refused.
 *
 * <p>{@code tryPublish} and {@code request} never wait for a commit: they answer now.
 *
 * <p>Thread-safe.
 */
public class RingbusTemplate {

    private static final boolean TX_PRESENT = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            RingbusTemplate.class.getClassLoader());

    private final Client client;
    private final OutboxPublisher outbox;

    /**
     * Creates a template.
     *
     * @param client the broker (or a scoped client of it) to publish through
     */
    public RingbusTemplate(Client client) {
        this(client, null);
    }

    /**
     * Creates a template that appends the guaranteed subjects to the outbox.
     *
     * @param client the broker (or a scoped client of it) to publish through
     * @param outbox the guaranteed subjects' publisher, or {@code null} for none
     */
    public RingbusTemplate(Client client, OutboxPublisher outbox) {
        this.client = Objects.requireNonNull(client, "client");
        this.outbox = outbox;
    }

    /** @return the client this template publishes through */
    public Client client() {
        return client;
    }

    /**
     * Publishes {@code payload} to {@code subject}, after commit inside a transaction; waits
     * while the ring is full.
     *
     * @param subject a literal subject
     * @param payload the payload, passed as is to in-process subscribers
     * @throws IllegalArgumentException naming the subject when it is not a literal subject
     * @throws IllegalStateException    when the broker is closed (after commit: thrown to the
     *                                  committing thread)
     */
    public void publish(String subject, Object payload) {
        publish(subject, Headers.EMPTY, payload);
    }

    /**
     * Publishes {@code payload} with {@code headers} to {@code subject}, after commit inside a
     * transaction; a guaranteed subject is appended to the outbox in the transaction instead, its
     * ordering key taken from the {@code Ringbus-Key} header.
     *
     * @param subject a literal subject
     * @param headers headers to send with it
     * @param payload the payload
     * @throws IllegalStateException when the broker is closed, or naming the subject when it is
     *                               guaranteed and no transaction is active
     */
    public void publish(String subject, Headers headers, Object payload) {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(headers, "headers");
        if (outbox != null && outbox.isGuaranteed(subject)) {
            outbox.append(subject, headers, payload);
            return;
        }
        if (TX_PRESENT && TransactionDeferral.deferIfActive(() -> client.publish(subject, null, headers, payload))) {
            return;
        }
        client.publish(subject, null, headers, payload);
    }

    /**
     * Publishes now, inside a transaction or not.
     *
     * @param subject a literal subject
     * @param payload the payload
     */
    public void publishNow(String subject, Object payload) {
        client.publish(subject, payload);
    }

    /**
     * Publishes now if the ring has room; never waits and never defers to a commit.
     *
     * @param subject a literal subject
     * @param payload the payload
     * @return {@code false} when the ring (or its byte budget) is full; counted by the broker
     */
    public boolean tryPublish(String subject, Object payload) {
        return client.tryPublish(subject, payload);
    }

    /**
     * Sends a request now and completes with the first reply.
     *
     * @param subject a literal subject
     * @param payload the request payload
     * @param timeout how long to wait for a reply
     * @return the reply; fails with {@link io.ringbus.core.NoRespondersException} when no one
     *         can receive the subject, {@link java.util.concurrent.TimeoutException} without a
     *         reply in time. Completes on an event loop: do not block in dependent stages
     */
    public CompletableFuture<Message> request(String subject, Object payload, Duration timeout) {
        return client.request(subject, payload, timeout);
    }

    /**
     * Sends a request with headers now.
     *
     * @param subject a literal subject
     * @param headers headers to send with it
     * @param payload the request payload
     * @param timeout how long to wait for a reply
     * @return the reply, as {@link #request(String, Object, Duration)}
     */
    public CompletableFuture<Message> request(String subject, Headers headers, Object payload, Duration timeout) {
        return client.request(subject, headers, payload, timeout);
    }
}
