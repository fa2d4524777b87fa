package io.ringbus.server.internal;

/**
 * A network connection whose PUB is being routed, as the outbounds it delivers to see it: each
 * delivery's {@link WireMessage} names it, so no thread-local is needed to find it. Both methods
 * are called on the publisher's event loop, inside its publish.
 */
interface Publisher {
    /**
     * {@code subscriber} has deliveries queued and no drain scheduled: it is woken once at the end
     * of the publisher's read, not once per message (a wake-up of another event loop is a system
     * call; nats-server flushes once per read loop the same way).
     */
    void flushLater(Outbound subscriber);

    /**
     * {@code subscriber} is past its stall mark: the publisher reads no more until it is not, or
     * until the subscriber is cut off at its write deadline (see {@link Outbound}).
     */
    void stalledBy(Outbound subscriber);
}
