package io.ringbus.server;

import io.ringbus.core.Scope;

import java.util.Objects;

/**
 * Who an {@link Authenticator} says a client is: a name for logs and the monitor, the scope its
 * connection gets, and the permissions that restrict it within that scope.
 *
 * @param name        the identity's name
 * @param scope       its scope
 * @param permissions its permissions, or {@code null} for none beyond the scope
 */
public record Identity(String name, Scope scope, Permissions permissions) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException when the name or scope is missing
     */
    public Identity {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(scope, "scope");
    }
}
