package io.ringbus.outbox;

import java.time.Instant;

/**
 * A row that exhausted its attempts or was refused permanently by its sink.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param event     the row as a sink would receive it ({@code attempts} = failed attempts)
 * @param lastError the last failure, as recorded
 * @param deadAt    when it became a dead letter (database clock)
 */
public record DeadLetter(OutboxEvent event, String lastError, Instant deadAt) {
}
