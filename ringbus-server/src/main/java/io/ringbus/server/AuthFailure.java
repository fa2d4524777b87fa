package io.ringbus.server;

import java.util.Locale;

/**
 * Why a client was refused authentication: each is counted on its own ({@code /varz}
 * {@code auth_failures_by_reason}, meter {@code ringbus.server.auth.failures} tagged
 * {@code reason}). The client itself is told only {@code -ERR 'Authorization Violation'} (or
 * {@code 'Authentication Timeout'}), as nats-server tells it: the reason is for the operator.
 */
public enum AuthFailure {
    /** Authentication is required and CONNECT carried no credential of any kind. */
    NO_CREDENTIALS,
    /** A user name no authenticator knows. */
    UNKNOWN_USER,
    /** A configured user with the wrong password. */
    BAD_PASSWORD,
    /** A token no authenticator knows. */
    UNKNOWN_TOKEN,
    /** An NKEY public key no authenticator knows. */
    UNKNOWN_NKEY,
    /** A configured NKEY whose signature of the nonce is missing or wrong. */
    BAD_SIGNATURE,
    /** With {@code verify_and_map}: a verified certificate that names no configured user. */
    CERTIFICATE_NOT_MAPPED,
    /** The authentication plug-in refused the client. */
    REFUSED,
    /** The authentication plug-in threw or failed its stage. */
    AUTHENTICATOR_ERROR,
    /** The authentication plug-in (or a bcrypt check) did not answer within its timeout. */
    AUTHENTICATOR_TIMEOUT,
    /**
     * A costly check (bcrypt) was refused at once: its source (remote IP address) already had
     * {@code auth_checks_per_source} checks waiting for a thread.
     */
    AUTHENTICATOR_BUSY,
    /** No CONNECT within the auth timeout. */
    AUTH_TIMEOUT,
    /** A command other than CONNECT, PING or PONG before an accepted CONNECT. */
    NOT_AUTHENTICATED;

    /** @return the name in metrics and the monitor, e.g. {@code bad_password} */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
