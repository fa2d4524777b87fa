package io.ringbus.outbox;

import java.util.concurrent.CompletionStage;

/**
 * Where a relay delivers outbox rows: the service provider interface for sinks.
 *
 * <p>The relay calls {@link #deliver} from its own thread or from the completion of an earlier
 * delivery, never more than {@link #maxConcurrency()} times without a completion in between, and
 * for rows with the same key only after the previous one completed. {@code deliver} must not
 * block: start the call and return a stage (a non-blocking client, or a virtual thread).
 *
 * <p>Outcome: complete normally = delivered; complete exceptionally with
 * {@link PermanentDeliveryException} = dead letter at once (a 4xx, say); any other exception, or
 * no completion within the relay's delivery timeout = retry later with backoff. A sink should
 * also bound its own calls with a timeout so that abandoned calls do not pile up.
 */
public interface OutboxSink extends AutoCloseable {
    /** @return a short name for metrics and logs, e.g. {@code http} */
    String name();

    /** @return the most deliveries this sink may have in flight at once (at least 1) */
    int maxConcurrency();

    /**
     * Starts delivering one row.
     *
     * @param event the row
     * @return completes when the destination acknowledged the row
     */
    CompletionStage<?> deliver(OutboxEvent event);

    /** Releases the sink's clients. The default does nothing. */
    @Override
    default void close() {
    }
}
