package io.ringbus.outbox;

/**
 * How many rows the outbox holds in each state.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param pending   waiting for delivery or for their next attempt; -1 for an insert-only table,
 *                  whose rows stay as they were inserted (the WAL relay's slot position tells
 *                  what is delivered)
 * @param delivered delivered and kept until the retention sweep (0 when relays delete them); -1
 *                  for an insert-only table
 * @param dead      dead letters
 */
public record OutboxCounts(long pending, long delivered, long dead) {
}
