package io.ringbus.bench.network;

/**
 * One server's slow-consumer overload run (NATS semantics: a consumer that cannot keep up is cut
 * off rather than buffered without bound; whether the publishers are slowed meanwhile is up to
 * the server, and shows in the two publish rates).
 *
 * @param server                 the server
 * @param messages               messages published in each phase
 * @param unloadedPublishRate    msg/s with only the fast subscriber
 * @param overloadPublishRate    msg/s with the slow subscribers added
 * @param slowRate               the slow subscribers' target rate, msg/s
 * @param fastReceived           the fast subscriber's deliveries in the overload phase (must be all)
 * @param jnatsSlowHandled       messages the slow jnats subscriber's handler got
 * @param jnatsSlowPending       messages waiting in jnats' memory for its handler when the fast
 *                               subscriber was done (the backlog the server did not see)
 * @param jnatsSlowDropped       messages jnats dropped for it (client-side pending limit)
 * @param jnatsSlowDisconnected  whether the server disconnected the slow jnats subscriber
 * @param socketSlowReceived     messages the slow socket reader got before it was cut off
 * @param socketSlowDisconnected whether the server disconnected the slow socket reader
 * @param socketSlowError        the {@code -ERR} it was sent, or {@code null}
 * @param serverSlowConsumers    slow consumers the server reported (its counter or its log)
 * @param peakRssKiB             the server's peak RSS over both phases, -1 when unknown
 * @param failure                {@code null}, or why the run failed (the fast subscriber or a
 *                               publisher was hurt); the other fields are then zero
 */
public record SlowConsumerResult(ServerKind server, long messages, double unloadedPublishRate,
                                 double overloadPublishRate, double slowRate, long fastReceived,
                                 long jnatsSlowHandled, long jnatsSlowPending, long jnatsSlowDropped, boolean jnatsSlowDisconnected,
                                 long socketSlowReceived, boolean socketSlowDisconnected, String socketSlowError,
                                 long serverSlowConsumers, long peakRssKiB, String failure) {
    /**
     * @param server  the server
     * @param failure what went wrong
     * @return a failed run
     */
    static SlowConsumerResult failed(ServerKind server, String failure) {
        return new SlowConsumerResult(server, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, false, null, 0, -1, failure);
    }
}
