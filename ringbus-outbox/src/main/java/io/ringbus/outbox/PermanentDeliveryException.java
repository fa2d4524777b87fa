package io.ringbus.outbox;

/**
 * Thrown (as the exceptional completion of {@link OutboxSink#deliver}) when retrying a row cannot
 * help, such as an HTTP 4xx: the relay moves the row to the dead letters at once.
 *
 * <p>Immutable once thrown; safe to pass between threads.
 */
public class PermanentDeliveryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what the destination said
     */
    public PermanentDeliveryException(String message) {
        super(message);
    }

    /**
     * @param message what the destination said
     * @param cause   the underlying failure
     */
    public PermanentDeliveryException(String message, Throwable cause) {
        super(message, cause);
    }
}
