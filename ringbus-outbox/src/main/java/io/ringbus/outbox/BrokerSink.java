package io.ringbus.outbox;

import io.ringbus.core.Client;
import io.ringbus.core.ScopeViolationException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Delivers rows to an in-process ringbus broker: publishes each to its subject with its headers
 * plus {@value OutboxEvent#EVENT_ID_HEADER} (and {@value OutboxEvent#KEY_HEADER} when keyed); the
 * payload is the row's {@code byte[]}.
 *
 * <p>"Delivered" means accepted by the broker's ring (handlers run afterwards; the broker keeps
 * events in memory, so a crash after this point loses what subscribers had not handled yet).
 * When the ring is full the publish waits (the broker's backpressure), holding back the relay and
 * leaving the backlog in the database. A subject outside the client's scope is a permanent
 * failure (dead letter).
 *
 * <p>Threading: thread-safe; a relay calls it from its delivery threads, and a publish that waits
 * for ring space blocks only the calling relay thread.
 */
public final class BrokerSink implements OutboxSink {
    private final Client client;

    /**
     * @param client the broker client to publish with; its scope bounds the subjects it may publish to
     */
    public BrokerSink(Client client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public String name() {
        return "broker";
    }

    /** @return 1: publishing completes before {@code deliver} returns */
    @Override
    public int maxConcurrency() {
        return 1;
    }

    @Override
    public CompletionStage<?> deliver(OutboxEvent event) {
        try {
            client.publish(event.subject(), null, event.headersWithEventId(), event.payload());
            return CompletableFuture.completedFuture(null);
        } catch (ScopeViolationException e) {
            return CompletableFuture.failedFuture(new PermanentDeliveryException(e.getMessage(), e));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
