package io.ringbus.bench.seed;

/**
 * One event bus under test in the seed scenario. A fresh instance serves one round:
 * {@link #start} (untimed), then {@link #publish} from the producer threads (timed, until every
 * subscriber has everything), then {@link #close} (untimed).
 */
public interface Contender {
    /** @return the name used on the command line and in reports */
    String name();

    /**
     * Tells whether the design promises that each subscriber sees one producer's events in
     * publish order. When it does, a reordering fails the round; when not, it is only counted.
     * Losses and duplicates always fail.
     *
     * @return {@code true} when per-producer order is part of the design's contract
     */
    boolean keepsProducerOrder();

    /**
     * Builds the bus and subscribes every subscriber. Each subscriber's
     * {@link SeedSubscriber#onEvent} must be called one call at a time.
     *
     * @param topology subjects and subscribers
     * @throws Exception when the bus cannot start
     */
    void start(SeedTopology topology) throws Exception;

    /**
     * Publishes one event; called concurrently by the producer threads. Waits when the design
     * has backpressure and the bus is full.
     *
     * @param subject the subject name, one of {@link SeedTopology#subjects()}
     * @param event   the event
     */
    void publish(String subject, SeedEvent event);

    /**
     * Stops the bus and every thread it started.
     *
     * @throws Exception when stopping fails
     */
    void close() throws Exception;
}
