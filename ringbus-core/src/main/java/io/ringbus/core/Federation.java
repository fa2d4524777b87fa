package io.ringbus.core;

/**
 * A link that shares a broker's PUBLIC and FEDERATED subjects with other nodes: the SPI that
 * ringbus-federation's {@code NatsFederation} implements over a NATS cluster. Set with
 * {@link BrokerBuilder#federation(Federation)}; the broker starts it, feeds it, and closes it.
 *
 * <p><b>What the broker promises.</b> {@link #send} is called on the publishing thread for every
 * message published on this node to a subject of scope PUBLIC or FEDERATED (never PRIVATE or ROOT,
 * never a message that came from the link), after it was handed to the local subscribers, in each
 * publisher's order. {@link #interest} is called when a subscription on this node starts or ends,
 * so the link receives only what local subscribers want.
 *
 * <p><b>What the link promises.</b> {@link #send} never blocks; what it cannot send is counted in
 * {@link #stats()}, never dropped silently. Messages from other nodes go to
 * {@link FederationContext#deliver}.
 */
public interface Federation extends AutoCloseable {
    /**
     * Starts the link; called once, from the broker's construction. A link that cannot work as
     * configured (credentials refused, TLS failing) throws, and the broker is not built; one whose
     * servers are only unreachable keeps trying and counts what it cannot send.
     *
     * @param context the broker's side
     * @throws IllegalStateException naming the servers and the reason when the link is refused
     */
    void start(FederationContext context);

    /**
     * Sends a message published on this node to the other nodes.
     *
     * @param subject      its subject
     * @param replyTo      its reply subject, or {@code null}
     * @param headers      its headers (never {@code null})
     * @param payload      its payload: {@code byte[]} and {@code String} cross; other types are counted
     *                     as not sent
     * @param servedGroups the queue groups that received it on this node: other nodes' members of these
     *                     groups must not get it again (a queue group gets each message once in the
     *                     federation, local members first)
     */
    void send(String subject, String replyTo, Headers headers, Object payload, String[] servedGroups);

    /**
     * A subscription on this node started or ended.
     *
     * @param pattern    its pattern
     * @param queueGroup its queue group, or {@code null}
     * @param added      {@code true} when it started
     */
    void interest(String pattern, String queueGroup, boolean added);

    /** @return whether other nodes can be reached now (a request with no local responder is sent then) */
    boolean isConnected();

    /** @return the link's state and counters */
    FederationStats stats();

    /** Stops the link: no more sending or delivering. Idempotent. */
    @Override
    void close();
}
