package io.ringbus.core;

/**
 * Security scope of a subject and of a client, ordered from least to most trusted.
 *
 * <p>A client of scope {@code c} may publish to and receive from a subject of scope {@code s}
 * only when {@code s <= c}, as ordered by {@link #includes(Scope)}.
 *
 * <p>Immutable; safe to share between threads.
 */
public enum Scope {
    /** Visible to remote, untrusted actors (for example network clients without credentials). */
    PUBLIC,
    /** Visible to trusted servers. */
    FEDERATED,
    /** Visible to trusted actors in the local process. */
    PRIVATE,
    /** Full access. */
    ROOT;

    /**
     * Tells whether a client of this scope may see a subject of {@code subjectScope}.
     *
     * @param subjectScope the scope of a subject
     * @return {@code true} when {@code subjectScope} is at or below this scope
     */
    public boolean includes(Scope subjectScope) {
        return subjectScope.ordinal() <= ordinal();
    }
}
