package io.ringbus.server;

import java.util.Objects;

/**
 * An {@link Authenticator}'s refusal with its reason: completing the stage exceptionally with it
 * refuses the client at once, without asking the authenticators after it. (A stage completing with
 * {@code null} says "not one of mine" instead.)
 */
public final class AuthenticationException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why, counted per reason. */
    private final AuthFailure reason;

    /**
     * @param reason  why the client is refused
     * @param message what the log says; never a secret the client sent
     */
    public AuthenticationException(AuthFailure reason, String message) {
        super(message, null, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** @return why the client is refused */
    public AuthFailure reason() {
        return reason;
    }
}
