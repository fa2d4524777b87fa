package io.ringbus.server;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * A snapshot of a server's counters.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param connections          clients connected now
 * @param totalConnections     clients accepted since start
 * @param rejectedConnections  connections refused by maxConnections
 * @param messagesIn           PUB/HPUB accepted into the broker
 * @param messagesOut          MSG/HMSG written to clients
 * @param bytesIn              bytes read from clients
 * @param bytesOut             MSG/HMSG bytes written to clients (protocol replies not counted)
 * @param slowConsumers        clients dropped for exceeding maxPending
 * @param authFailures         connections closed for bad, missing or late credentials
 * @param permissionViolations PUB/SUB refused by the client's scope or permissions
 * @param protocolErrors       -ERR sent for malformed input (parser errors, invalid subjects, limits)
 * @param publishPauses        times a connection stopped reading because the broker was full
 * @param staleConnections     clients closed for not answering pings
 * @param outboundStalls       deliveries that waited for a subscriber to read (half of maxPending queued)
 * @param tlsHandshakeFailures TLS handshakes that failed (no or a bad client certificate, no common
 *                             protocol, closed during the handshake)
 * @param tlsHandshakeTimeouts clients closed for not completing the TLS handshake in time
 * @param tlsPlaintextClients  clients closed for sending plaintext where TLS is required
 * @param authFailuresByReason {@code authFailures} by reason; every reason present, in declaration order
 */
public record ServerStats(long connections, long totalConnections, long rejectedConnections, long messagesIn,
                          long messagesOut, long bytesIn, long bytesOut, long slowConsumers, long authFailures,
                          long permissionViolations, long protocolErrors, long publishPauses,
                          long staleConnections, long outboundStalls, long tlsHandshakeFailures,
                          long tlsHandshakeTimeouts, long tlsPlaintextClients,
                          Map<AuthFailure, Long> authFailuresByReason) {
    /** Keeps an unmodifiable copy of the map, in the reasons' declaration order. */
    public ServerStats {
        authFailuresByReason = authFailuresByReason.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new EnumMap<>(authFailuresByReason));
    }
}
