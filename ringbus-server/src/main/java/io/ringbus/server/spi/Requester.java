package io.ringbus.server.spi;

import io.ringbus.core.Scope;

/**
 * Who sent an {@link ApiRequest}: its scope, name and connection, and what it may do. Thread-safe:
 * an extension's executor may ask it.
 */
public interface Requester {
    /** @return the connection's scope */
    Scope scope();

    /** @return the user, token or certificate name it authenticated as, or {@code null} without authentication */
    String name();

    /** @return the server's id of its connection (as {@code /connz cid}) */
    long connectionId();

    /**
     * @param subject a literal subject
     * @return whether it may publish there: its scope includes the subject's and its permissions
     *         allow it (the allow and deny lists; granted reply subjects are not counted)
     */
    boolean mayPublish(String subject);

    /**
     * @param subject a subject or pattern
     * @return whether it may subscribe there: its permissions allow it and its scope includes the
     *         highest scope a subject of the pattern can have
     */
    boolean maySubscribe(String subject);

    /**
     * Refuses the request as a permission violation, exactly as nats-server refuses a publish the
     * user may not make: {@code -ERR 'Permissions Violation for Publish to "<subject>"'} on the
     * connection (which stays), counted, and no reply.
     *
     * @param subject the subject to name (the request's)
     */
    void refuse(String subject);
}
