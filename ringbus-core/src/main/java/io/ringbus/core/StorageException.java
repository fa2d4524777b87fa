package io.ringbus.core;

/**
 * A store could not do what was asked: a write or {@code fsync} failed (a full disk), the store is
 * away (JetStream unreachable), or its configuration conflicts with what exists. Whatever the store
 * acknowledged before stays stored.
 */
public class StorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the stream, subject or file
     * @param cause   the underlying error, or {@code null}
     */
    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message what failed, naming the stream, subject or file */
    public StorageException(String message) {
        super(message);
    }
}
