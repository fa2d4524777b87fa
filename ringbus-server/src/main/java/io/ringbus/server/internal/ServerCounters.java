package io.ringbus.server.internal;

import io.ringbus.server.AuthFailure;
import io.ringbus.server.ServerStats;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/** The server's counters, written by connections from any thread. */
public final class ServerCounters {
    final AtomicLong connections = new AtomicLong();
    final LongAdder totalConnections = new LongAdder();
    /** Exceptions an extension's request handler threw (the connection stays). */
    final LongAdder extensionErrors = new LongAdder();
    final LongAdder rejectedConnections = new LongAdder();
    final LongAdder messagesIn = new LongAdder();
    final LongAdder messagesOut = new LongAdder();
    final LongAdder bytesIn = new LongAdder();
    final LongAdder bytesOut = new LongAdder();
    final LongAdder slowConsumers = new LongAdder();
    final LongAdder authFailures = new LongAdder();
    /** {@link #authFailures} by reason, indexed by ordinal. */
    private final LongAdder[] authFailuresByReason = new LongAdder[AuthFailure.values().length];
    // Costly credential checks (bcrypt) by outcome: see CostlyCheckPool.
    final LongAdder authChecksRun = new LongAdder();
    final LongAdder authChecksRefused = new LongAdder();
    final LongAdder authChecksExpired = new LongAdder();
    final LongAdder authChecksAbandoned = new LongAdder();
    final LongAdder permissionViolations = new LongAdder();
    /** Deliveries a subscribe deny entry withheld from a wildcard subscription. */
    final LongAdder permissionFiltered = new LongAdder();
    final LongAdder protocolErrors = new LongAdder();
    /** $RB.API.FILTER requests refused because a filter limit was reached (max_filters, max_filter_bytes, the budget). */
    final LongAdder filtersRefused = new LongAdder();
    final LongAdder subscriptionsRefused = new LongAdder();
    final LongAdder publishPauses = new LongAdder();
    final LongAdder staleConnections = new LongAdder();
    final LongAdder outboundStalls = new LongAdder();
    // For the monitor (NATS /varz and /subsz count payload bytes, not wire bytes).
    final LongAdder payloadBytesIn = new LongAdder();
    final LongAdder payloadBytesOut = new LongAdder();
    final LongAdder subscribes = new LongAdder();
    final LongAdder unsubscribes = new LongAdder();
    // Publishes to durable subjects (see DurableAcks).
    final LongAdder durablePublishes = new LongAdder();
    final LongAdder durableAcksPending = new LongAdder();
    final LongAdder durableFailures = new LongAdder();
    final LongAdder durableRefused = new LongAdder();
    // TLS handshakes that failed, per reason (see TlsPipeline).
    final LongAdder tlsHandshakeFailures = new LongAdder();
    final LongAdder tlsHandshakeTimeouts = new LongAdder();
    final LongAdder tlsPlaintextClients = new LongAdder();
    /**
     * Counts the active subscriptions of the open connections when asked (the monitor, a scrape):
     * walking the connections then costs nothing per SUB, where a shared set of every subscription
     * would cost a contended insert and removal each.
     */
    private volatile LongSupplier activeSubscriptions = () -> 0;

    ServerCounters() {
        for (int i = 0; i < authFailuresByReason.length; i++) {
            authFailuresByReason[i] = new LongAdder();
        }
    }

    /** Counts a client refused authentication, in the total and under its reason. */
    void authFailed(AuthFailure reason) {
        authFailures.increment();
        authFailuresByReason[reason.ordinal()].increment();
    }

    /** @return clients refused for {@code reason} since start */
    public long authFailures(AuthFailure reason) {
        return authFailuresByReason[reason.ordinal()].sum();
    }

    /** @param source counts the subscriptions of connected clients that still receive messages */
    void activeSubscriptionsFrom(LongSupplier source) {
        this.activeSubscriptions = source;
    }

    /** @return subscriptions of connected clients that still receive messages */
    public long activeSubscriptions() {
        return activeSubscriptions.getAsLong();
    }

    /** @return a snapshot */
    public ServerStats snapshot() {
        return new ServerStats(connections.get(), totalConnections.sum(), rejectedConnections.sum(),
                messagesIn.sum(), messagesOut.sum(), bytesIn.sum(), bytesOut.sum(), slowConsumers.sum(),
                authFailures.sum(), permissionViolations.sum(), protocolErrors.sum(), publishPauses.sum(),
                staleConnections.sum(), outboundStalls.sum(), tlsHandshakeFailures.sum(), tlsHandshakeTimeouts.sum(),
                tlsPlaintextClients.sum(), authFailuresByReason());
    }

    private Map<AuthFailure, Long> authFailuresByReason() {
        Map<AuthFailure, Long> byReason = new EnumMap<>(AuthFailure.class);
        for (AuthFailure reason : AuthFailure.values()) {
            byReason.put(reason, authFailures(reason));
        }
        return byReason;
    }

    /** @return costly credential checks (bcrypt) a thread ran */
    public long authChecksRun() {
        return authChecksRun.sum();
    }

    /** @return costly checks refused at once: their source already had {@code auth_checks_per_source} waiting */
    public long authChecksRefused() {
        return authChecksRefused.sum();
    }

    /** @return costly checks never run: their client's deadline ({@code authenticator_timeout}) passed first */
    public long authChecksExpired() {
        return authChecksExpired.sum();
    }

    /** @return costly checks never run: their client left first */
    public long authChecksAbandoned() {
        return authChecksAbandoned.sum();
    }

    /** @return deliveries withheld from wildcard subscriptions because a subscribe deny entry names the subject */
    public long permissionFiltered() {
        return permissionFiltered.sum();
    }

    /** @return {@code $RB.API.FILTER} requests refused at a filter limit (the connection kept) */
    public long filtersRefused() {
        return filtersRefused.sum();
    }

    /** @return SUBs refused because every subscription together reached {@code max_subscription_memory} */
    public long subscriptionsRefused() {
        return subscriptionsRefused.sum();
    }

    /** @return payload and header bytes of the messages clients published (NATS {@code in_bytes}) */
    public long payloadBytesIn() {
        return payloadBytesIn.sum();
    }

    /** @return payload and header bytes of the messages delivered to clients (NATS {@code out_bytes}) */
    public long payloadBytesOut() {
        return payloadBytesOut.sum();
    }

    /** @return network subscriptions made (NATS {@code num_inserts}) */
    public long subscribes() {
        return subscribes.sum();
    }

    /** @return network subscriptions removed: UNSUB, a replaced sid, the connection closed (NATS {@code num_removes}) */
    public long unsubscribes() {
        return unsubscribes.sum();
    }

    /** @return PUB/HPUB to durable subjects accepted (stored, or being stored) */
    public long durablePublishes() {
        return durablePublishes.sum();
    }

    /** @return publishes to durable subjects the store has not acknowledged yet, over every connection */
    public long durableAcksPending() {
        return durableAcksPending.sum();
    }

    /** @return publishes to durable subjects the store failed to store (answered with an error PubAck, if asked) */
    public long durableFailures() {
        return durableFailures.sum();
    }

    /**
     * @return publishes to durable subjects the store refused before storing anything, for a reason
     *         JetStream refuses too (headers over 64k): answered with JetStream's error PubAck, if asked
     */
    public long durableRefused() {
        return durableRefused.sum();
    }

    /** @return TLS handshakes that failed: bad or missing client certificate, no common protocol, closed early */
    public long tlsHandshakeFailures() {
        return tlsHandshakeFailures.sum();
    }

    /** @return clients closed for not completing the TLS handshake within {@code tls_timeout} */
    public long tlsHandshakeTimeouts() {
        return tlsHandshakeTimeouts.sum();
    }

    /** @return clients closed for sending plaintext where TLS was required */
    public long tlsPlaintextClients() {
        return tlsPlaintextClients.sum();
    }
}
