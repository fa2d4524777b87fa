package io.ringbus.core;

/**
 * Completes a request at once when no subscriber can receive its subject.
 *
 * <p>Immutable once thrown; safe to pass between threads.
 */
public final class NoRespondersException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String subject;

    /**
     * Creates the exception.
     *
     * @param subject the request subject that had no responders
     */
    public NoRespondersException(String subject) {
        super("no responders for request subject '" + subject + "'");
        this.subject = subject;
    }

    /** @return the request subject */
    public String subject() {
        return subject;
    }
}
