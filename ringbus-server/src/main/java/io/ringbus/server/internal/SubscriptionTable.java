package io.ringbus.server.internal;

import io.ringbus.core.ExecutionMode;
import io.ringbus.core.MessageFilter;
import io.ringbus.core.ScopeViolationException;
import io.ringbus.core.Subject;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One connection's subscriptions: SUB and UNSUB, their limits ({@code max_subscriptions} per
 * connection, {@code max_subscription_memory} for the server's heap, charged per subscription),
 * auto-unsubscribing ({@code UNSUB sid max}) and the content filters of {@code $RB.API.FILTER}.
 * Each subscription is a broker {@link ExecutionMode#PUBLISHER} subscription whose
 * {@link Delivery} writes into the connection's {@link Outbound}.
 *
 * <p>Event loop of the connection only, but for the map, which the monitor iterates.
 */
final class SubscriptionTable {
    /** Auto-unsubscribing sids noted before the first look for ended ones. */
    private static final int MIN_ENDING_LOOK = 64;
    /** Least time between two scans for inactive subscriptions that freed nothing. */
    private static final long PRUNE_INTERVAL_NANOS = 100_000_000;
    /** Every network subscription (but its queue group): shared, as a server may hold a million. */
    private static final SubscribeOptions NETWORK_SUBSCRIPTION = SubscribeOptions.defaults().mode(ExecutionMode.PUBLISHER);

    private final NatsSession session;
    private final ServerContext server;
    /** Changed on the event loop only; concurrent because the monitor iterates it. */
    final Map<String, Subscription> subscriptions = new ConcurrentHashMap<>();
    /** This connection's content filters ($RB.API.FILTER) and their charge. */
    final ConnectionFilters filters;
    /** When inactive subscriptions were last dropped at a subscription limit. */
    private long lastPrune = System.nanoTime() - PRUNE_INTERVAL_NANOS;
    /** Whether that drop found any (then the next limit may drop again at once). */
    private boolean lastPruneFreed = true;
    /** Sids given a message limit ({@code UNSUB sid max}), looked at in {@link #autoUnsubscribing}. */
    private final Set<String> endingSids = new LinkedHashSet<>();
    /** How many of them make the next look. */
    private int endingSidsLookAt = MIN_ENDING_LOOK;

    SubscriptionTable(NatsSession session) {
        this.session = session;
        this.server = session.server;
        this.filters = new ConnectionFilters(server, subscriptions, this::subscribe);
    }

    /** {@code SUB}; see {@link ProtocolHandler#onSub}. */
    void onSub(String subject, String queueGroup, String sid) {
        long cost = SubscriptionCost.of(subject, queueGroup);
        if (atSubscriptionLimit(cost, sid)
                && (lastPruneFreed || System.nanoTime() - lastPrune > PRUNE_INTERVAL_NANOS)) {
            // Auto-unsubscribed ones (UNSUB sid max) stay until a limit is reached: drop them
            // first; a scan that freed nothing is not repeated for PRUNE_INTERVAL, so a client
            // held at its limit cannot make every SUB a scan of its subscriptions.
            lastPrune = System.nanoTime();
            lastPruneFreed = false;
            for (Iterator<Subscription> it = subscriptions.values().iterator(); it.hasNext(); ) {
                Subscription done = it.next();
                if (!done.isActive()) {
                    it.remove();
                    release(done);
                    lastPruneFreed = true;
                }
            }
            filters.retainSids(subscriptions.keySet());
        }
        if (atSubscriptionLimit(cost, sid)) {
            if (subscriptions.size() >= server.config.maxSubscriptions()) {
                server.counters.protocolErrors.increment();
                session.sendError("maximum subscriptions exceeded");
            } else {
                server.counters.subscriptionsRefused.increment();
                session.sendError("maximum subscriptions exceeded: max_subscription_memory="
                        + server.config.maxSubscriptionMemory() + " bytes in use");
            }
            return;
        }
        ConnectionPermissions permissions = session.permissions;
        if (permissions != null && !permissions.maySubscribe(subject, queueGroup)) {
            // As nats-server: the subscription is not made, the connection stays.
            session.permissionViolation("Subscription", queueGroup == null ? subject
                    : subject + "\" using queue \"" + queueGroup);
            return;
        }
        try {
            subscribe(sid, subject, queueGroup, filters.forSubscription(subject, queueGroup));
            filters.sidReleased(sid);
        } catch (ScopeViolationException e) {
            session.permissionViolation("Subscription", subject);
            return;
        } catch (IllegalArgumentException e) {
            session.protocolError(ProtocolError.INVALID_SUBJECT);
            return;
        } catch (IllegalStateException brokerClosed) {
            session.closeQuietly();
            return;
        }
        session.ok();
    }

    /**
     * Makes (or re-makes, for a sid in use) one subscription: delivered on the publishing thread,
     * straight into this connection's outbound (never waits).
     */
    private void subscribe(String sid, String subject, String queueGroup, MessageFilter filter) {
        SubscribeOptions options = NETWORK_SUBSCRIPTION.filter(filter);
        if (queueGroup != null) {
            options = options.queueGroup(queueGroup);
        }
        Delivery delivery = new Delivery(session.outbound, sid, session.client.id(), session.options.echo(),
                session.permissions, subject, server.counters);
        Subscription subscription = session.client.subscribe(subject, delivery, options);
        server.subscriptionBytes.addAndGet(SubscriptionCost.of(subject, queueGroup));
        Subscription previous = subscriptions.put(sid, subscription);
        server.counters.subscribes.increment();
        if (previous != null) {
            previous.unsubscribe();
            release(previous);
            server.counters.unsubscribes.increment();
        }
    }

    /**
     * @return whether one more subscription would pass {@code max_subscriptions} (this
     *         connection's count) or {@code max_subscription_memory} (every connection's heap: a
     *         check here, the charge in {@link #subscribe}, so other event loops may each add one
     *         subscription in between); a SUB that re-makes a sid in use adds no count
     */
    private boolean atSubscriptionLimit(long cost, String sid) {
        if (subscriptions.containsKey(sid)) {
            return false;
        }
        return subscriptions.size() >= server.config.maxSubscriptions()
                || server.subscriptionBytes.get() + cost > server.config.maxSubscriptionMemory();
    }

    /** {@code UNSUB}; see {@link ProtocolHandler#onUnsub}. */
    void onUnsub(String sid, long maxMessages) {
        Subscription subscription = subscriptions.get(sid);
        if (subscription != null) {
            if (maxMessages > 0) {
                subscription.unsubscribeAfter(maxMessages);
                filters.unsubscribeAfter(sid, maxMessages);
                autoUnsubscribing(sid);
            } else {
                filters.sidReleased(sid);
                subscriptions.remove(sid);
                subscription.unsubscribe();
                release(subscription);
                server.counters.unsubscribes.increment();
            }
        }
        session.ok();
    }

    /**
     * Notes a subscription that ends by itself after its last message ({@code UNSUB sid max}) and,
     * once such notes have doubled since the last look, drops those that ended: a client that
     * subscribes, auto-unsubscribes and publishes in a loop would otherwise keep every ended
     * subscription (and its charge) until the connection closes. Amortized O(1) per UNSUB.
     */
    private void autoUnsubscribing(String sid) {
        endingSids.add(sid);
        if (endingSids.size() < endingSidsLookAt) {
            return;
        }
        for (Iterator<String> it = endingSids.iterator(); it.hasNext(); ) {
            String ending = it.next();
            Subscription subscription = subscriptions.get(ending);
            if (subscription == null) {
                it.remove();
            } else if (!subscription.isActive()) {
                it.remove();
                subscriptions.remove(ending);
                filters.sidReleased(ending);
                release(subscription);
                server.counters.unsubscribes.increment();
            }
        }
        endingSidsLookAt = Math.max(MIN_ENDING_LOOK, 2 * endingSids.size());
    }

    /** Gives back the heap charged for a subscription this connection no longer holds. */
    private void release(Subscription subscription) {
        server.subscriptionBytes.addAndGet(-SubscriptionCost.of(subscription.pattern(),
                subscription.options().queueGroup()));
    }

    /** A slow consumer: no more deliveries to any of its subscriptions (they are released at close). */
    void stopAll() {
        for (Subscription subscription : subscriptions.values()) {
            subscription.unsubscribe();
        }
    }

    /** The connection is gone: every subscription ends and gives back its charge. */
    void close() {
        for (Subscription subscription : subscriptions.values()) {
            subscription.unsubscribe();
            release(subscription);
        }
        server.counters.unsubscribes.add(subscriptions.size());
        subscriptions.clear();
        filters.close();
    }

    /**
     * @return the sid of an active subscription of this connection that receives {@code subject}
     *         (a requester's reply subscription, for no-responders), or {@code null}
     */
    String sidReceiving(String subject) {
        for (Map.Entry<String, Subscription> entry : subscriptions.entrySet()) {
            if (entry.getValue().isActive() && Subject.matchesVerbatim(entry.getValue().pattern(), subject)) {
                return entry.getKey();
            }
        }
        return null;
    }

    /** Any thread: the subscriptions that still receive messages. */
    long active() {
        long active = 0;
        for (Subscription subscription : subscriptions.values()) {
            if (subscription.isActive()) {
                active++;
            }
        }
        return active;
    }
}
