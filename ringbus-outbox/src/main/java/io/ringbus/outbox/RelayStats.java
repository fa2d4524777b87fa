package io.ringbus.outbox;

import java.util.List;

/**
 * What a relay did since it started, and what it last saw of the outbox.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param name           the relay's name
 * @param pending        pending rows at the last count (every {@code countInterval}), -1 before the first
 * @param dead           dead letters at the last count, -1 before the first
 * @param inFlight       rows of the current batch not yet settled
 * @param delivered      rows delivered
 * @param retried        failed attempts scheduled for retry
 * @param deadLettered   rows this relay moved to the dead letters
 * @param batches        batches claimed
 * @param databaseErrors database failures the relay recovered from (reconnecting)
 * @param sinks          per-sink figures, in route order
 */
public record RelayStats(String name, long pending, long dead, long inFlight, long delivered, long retried,
                         long deadLettered, long batches, long databaseErrors, List<SinkStats> sinks) {
}
