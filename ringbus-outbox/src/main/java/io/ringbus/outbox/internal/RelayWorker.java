package io.ringbus.outbox.internal;

/**
 * One thread of a relay: a polling loop ({@link RelayLoop}) or a WAL stream ({@link WalRelayLoop}).
 * The relay ({@link RelayGroup}) starts, wakes, reads and stops its workers through this.
 */
public interface RelayWorker {
    /** Starts the worker's thread. */
    void start();

    /** Wakes the worker if it waits for work. */
    void wakeUp();

    /**
     * Adds this worker's counters to a relay's totals.
     *
     * @param totals inFlight, delivered, retried, deadLettered, batches, databaseErrors
     */
    void addTo(long[] totals);

    /** @return pending rows at the last count, -1 before the first */
    long pending();

    /** @return dead letters at the last count, -1 before the first */
    long dead();

    /** @return whether the worker looks for rows on its own right now (no NOTIFY needed) */
    boolean busy();

    /** Asks the worker to stop after its current batch, without waiting. */
    void stop();

    /**
     * Waits for the worker to stop (after {@link #stop()}), interrupting it when the deadline passes.
     *
     * @param deadlineNanos {@code System.nanoTime()} deadline
     * @return whether it stopped
     */
    boolean await(long deadlineNanos);
}
