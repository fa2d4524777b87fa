package io.ringbus.core.internal;

import io.ringbus.core.Client;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.PublishAck;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A view of a {@link RingBroker} limited to one scope. */
final class ScopedClient implements Client {
    private final RingBroker broker;
    private final Scope scope;
    private final long id;
    private final boolean verbatim;
    private volatile ScopedClient verbatimView;

    ScopedClient(RingBroker broker, Scope scope, long id) {
        this(broker, scope, id, false);
    }

    private ScopedClient(RingBroker broker, Scope scope, long id, boolean verbatim) {
        this.broker = broker;
        this.scope = scope;
        this.id = id;
        this.verbatim = verbatim;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public boolean hasSubscribers(String subject) {
        return broker.hasSubscribers(scope, subject, verbatim);
    }

    @Override
    public Scope scope() {
        return scope;
    }

    @Override
    public void publish(String subject, String replyTo, Headers headers, Object payload) {
        if (verbatim) {
            broker.publishVerbatim(scope, id, subject, replyTo, headers, payload, true);
        } else {
            broker.publish(scope, id, subject, replyTo, headers, payload, true);
        }
    }

    @Override
    public boolean tryPublish(String subject, String replyTo, Headers headers, Object payload) {
        return verbatim ? broker.publishVerbatim(scope, id, subject, replyTo, headers, payload, false)
                : broker.publish(scope, id, subject, replyTo, headers, payload, false);
    }

    @Override
    public CompletableFuture<PublishAck> tryPublishWithAck(String subject, String replyTo, Headers headers,
                                                           Object payload) {
        return broker.publishWithAck(scope, id, subject, replyTo, headers, payload, verbatim);
    }

    @Override
    public CompletableFuture<PublishAck> tryPublishView(Message view) {
        return broker.publishView(scope, id, view, verbatim);
    }

    @Override
    public Subscription subscribe(String pattern, MessageHandler handler, SubscribeOptions options) {
        return broker.subscribeInternal(scope, pattern, handler, options);
    }

    @Override
    public CompletableFuture<Message> request(String subject, Headers headers, Object payload, Duration timeout) {
        return broker.request(scope, id, subject, headers, payload, timeout);
    }

    @Override
    public Client verbatim() {
        if (verbatim) {
            return this;
        }
        ScopedClient view = verbatimView;
        if (view == null) {
            view = new ScopedClient(broker, scope, id, true);
            verbatimView = view;
        }
        return view;
    }

    @Override
    public String toString() {
        return "Client{id=" + id + ", scope=" + scope + '}';
    }
}
