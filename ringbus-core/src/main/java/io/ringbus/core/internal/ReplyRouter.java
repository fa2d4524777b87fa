package io.ringbus.core.internal;

import io.ringbus.core.Message;
import io.ringbus.core.NoRespondersException;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Request/reply: one event-loop subscription on {@code _INBOX.<broker id>.>} receives every
 * reply and completes the waiting future. The inbox of a request takes the scope of the request
 * subject ({@code _INBOX.<id>.<SCOPE>.<n>}), so whoever may receive a request may reply to it,
 * and a wildcard subscriber sees only the replies of requests it could see.
 *
 * <p>The future is completed on the event loop: dependent stages added without {@code ...Async}
 * run there and must not block.
 */
final class ReplyRouter {
    private final RingBroker broker;
    private final String prefix;
    private final ConcurrentHashMap<String, CompletableFuture<Message>> waiting = new ConcurrentHashMap<>();
    /** Requests with no local responder, by inbox: their subject, for a remote no-responders status. */
    private final ConcurrentHashMap<String, String> remoteOnly = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong();
    private final ReentrantLock subscribeLock = new ReentrantLock();
    private volatile Subscriber subscription;

    ReplyRouter(RingBroker broker, String brokerId) {
        this.broker = broker;
        this.prefix = "_INBOX." + brokerId + ".";
    }

    /** Registers the inbox scopes; call once before the broker is used. */
    void registerScopes() {
        for (Scope scope : Scope.values()) {
            broker.registerSubject(prefix + scope.name() + ".>", scope);
        }
    }

    /**
     * @param remoteSubject the request's subject when only other nodes can answer it (a NATS
     *                      no-responders status then fails it), else {@code null}
     * @return a new inbox subject for a request of the given subject scope, awaiting its future
     */
    String open(Scope subjectScope, CompletableFuture<Message> future, String remoteSubject) {
        ensureSubscribed();
        String inbox = prefix + subjectScope.name() + "." + next.incrementAndGet();
        waiting.put(inbox, future);
        if (remoteSubject != null) {
            remoteOnly.put(inbox, remoteSubject);
        }
        future.whenComplete((reply, error) -> {
            waiting.remove(inbox);
            remoteOnly.remove(inbox);
        });
        return inbox;
    }

    void cancel(String inbox) {
        waiting.remove(inbox);
    }

    private void ensureSubscribed() {
        if (subscription == null) {
            subscribeLock.lock();
            try {
                if (subscription == null) {
                    subscription = (Subscriber) broker.subscribeInternal(Scope.ROOT, prefix + ">", this::onReply,
                            SubscribeOptions.defaults());
                }
            } finally {
                subscribeLock.unlock();
            }
        }
    }

    private void onReply(Message reply) {
        String remoteSubject = remoteOnly.get(reply.subject());
        if (remoteSubject != null && "503".equals(reply.headers().status())) {
            CompletableFuture<Message> future = waiting.remove(reply.subject());
            if (future != null) {
                future.completeExceptionally(new NoRespondersException(remoteSubject));
            }
            return;
        }
        CompletableFuture<Message> future = waiting.remove(reply.subject());
        if (future != null) {
            future.complete(reply.copy());
        }
    }

    /** Fails every waiting request; the broker is closing. */
    void failAll(RuntimeException cause) {
        for (CompletableFuture<Message> future : waiting.values()) {
            future.completeExceptionally(cause);
        }
        waiting.clear();
    }
}
