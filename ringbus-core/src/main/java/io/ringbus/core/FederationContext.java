package io.ringbus.core;

/**
 * The broker's side of a {@link Federation} link. Thread-safe: the link calls it from its own threads.
 */
public interface FederationContext {
    /** @return this node's name (the broker's name), carried by what it sends as its origin */
    String nodeName();

    /**
     * Delivers a message that another node published to this node's subscribers. It is never sent
     * back to the federation and never stored (its origin stored it when durable). A subject whose
     * scope here is above FEDERATED is not delivered (counted by the link as refused).
     *
     * @param subject    its subject
     * @param replyTo    its reply subject, or {@code null}
     * @param headers    its headers, or {@code null}
     * @param payload    its payload
     * @param pattern    the pattern of the interest it came for ({@link Federation#interest})
     * @param queueGroup {@code null}: to the subscriptions outside queue groups with that pattern (one
     *                   copy each, however many patterns of this node match); otherwise only to one
     *                   member of that queue group
     * @return {@code false} when it was not delivered: its scope here is above FEDERATED
     *         ({@link #accepts(String)}); waits while the ring is full (backpressure on the link)
     * @throws IllegalStateException when the broker is closed
     */
    boolean deliver(String subject, String replyTo, Headers headers, Object payload, String pattern,
                    String queueGroup);

    /**
     * @param subject a subject from another node
     * @return whether its scope on this node lets it in (PUBLIC or FEDERATED)
     */
    boolean accepts(String subject);
}
