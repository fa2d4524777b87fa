package io.ringbus.core;

/**
 * Thrown when a client publishes or subscribes to a subject above its {@link Scope}.
 *
 * <p>Immutable once thrown; safe to pass between threads.
 */
public final class ScopeViolationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String subject;
    private final Scope subjectScope;
    private final Scope clientScope;

    /**
     * Creates the exception.
     *
     * @param action       what was attempted, for the message ("publish", "subscribe")
     * @param subject      the subject or pattern
     * @param subjectScope the subject's scope
     * @param clientScope  the client's scope
     */
    public ScopeViolationException(String action, String subject, Scope subjectScope, Scope clientScope) {
        super(action + " to subject '" + subject + "' needs scope " + subjectScope
                + " but the client has scope " + clientScope);
        this.subject = subject;
        this.subjectScope = subjectScope;
        this.clientScope = clientScope;
    }

    /** @return the subject or pattern that was refused */
    public String subject() {
        return subject;
    }

    /** @return the scope the subject requires */
    public Scope subjectScope() {
        return subjectScope;
    }

    /** @return the scope of the refused client */
    public Scope clientScope() {
        return clientScope;
    }
}
