package io.ringbus.core;

/**
 * A federation link's state and counters.
 *
 * @param state     {@code CONNECTED}, {@code RECONNECTING}, {@code DISCONNECTED} or {@code CLOSED}
 * @param server    the server the link is connected to now, or {@code null}
 * @param sent      messages sent to other nodes
 * @param received  messages received from other nodes and delivered here
 * @param notSent   messages that could not be sent (link down with its reconnect buffer full, a
 *                  payload type that cannot cross): lost for the other nodes, counted here
 * @param refused   messages from other nodes not delivered (a subject above FEDERATED here)
 * @param dropped   messages from other nodes dropped because this node took them too slowly (the
 *                  link's pending limit was reached: memory stays bounded, the others go on)
 * @param pending   the link's lag: messages from other nodes received and not yet delivered here
 * @param interest  the patterns (with their queue groups) this node receives
 * @param reconnects reconnections since start
 */
public record FederationStats(String state, String server, long sent, long received, long notSent, long refused,
                              long dropped, long pending, int interest, long reconnects) {
}
