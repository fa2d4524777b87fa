package io.ringbus.bench.network;

/**
 * Thrown when a network run lost, duplicated or reordered messages, when a client or server
 * dropped or disconnected something it must not, or when the run timed out.
 */
public final class NetworkVerificationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the server, the case and the counts
     */
    public NetworkVerificationException(String message) {
        super(message);
    }
}
