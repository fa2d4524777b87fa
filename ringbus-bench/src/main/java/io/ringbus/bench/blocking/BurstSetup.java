package io.ringbus.bench.blocking;

import io.ringbus.core.ExecutionMode;

/**
 * A handler configuration of the burst scenario: where the blocking handler runs and how many
 * calls may run at once.
 *
 * @param label       the name used in reports
 * @param mode        {@link ExecutionMode#WORKER} or {@link ExecutionMode#VIRTUAL}
 * @param concurrency handler calls at once: the worker pool size and {@code maxConcurrency}
 */
public record BurstSetup(String label, ExecutionMode mode, int concurrency) {
    /**
     * @throws IllegalArgumentException naming the value when the mode is EVENT_LOOP or the
     *                                  concurrency is below 1
     */
    public BurstSetup {
        if (mode == ExecutionMode.EVENT_LOOP) {
            throw new IllegalArgumentException("a burst setup runs on WORKER or VIRTUAL: mode=" + mode);
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1: concurrency=" + concurrency);
        }
    }
}
