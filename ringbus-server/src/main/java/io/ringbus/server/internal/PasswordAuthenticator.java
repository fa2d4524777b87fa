package io.ringbus.server.internal;

import io.ringbus.server.AuthFailure;
import io.ringbus.server.AuthRequest;
import io.ringbus.server.AuthenticationException;
import io.ringbus.server.Identity;
import io.ringbus.server.Permissions;
import io.ringbus.server.ServerConfig;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Configured users and passwords. A password may be a bcrypt hash ({@code $2a$}, {@code $2b$},
 * {@code $2y$}), as NATS allows: that check takes tens of milliseconds, so it runs on the
 * server's {@link CostlyCheckPool} under the client's {@link CheckTicket}, never on the event
 * loop that asked (see {@link PasswordCheck}). An unknown user is not this authenticator's to
 * refuse: a plug-in may know it; a known user with the wrong password is refused.
 */
final class PasswordAuthenticator implements InlineAuthenticator {
    private final Map<String, ServerConfig.UserCredential> users;
    private final Map<String, Permissions> permissions;
    private final CostlyCheckPool pool;

    PasswordAuthenticator(Map<String, ServerConfig.UserCredential> users, Map<String, Permissions> permissions,
                          CostlyCheckPool pool) {
        this.users = users;
        this.permissions = permissions;
        this.pool = pool;
    }

    /** Not used: a bcrypt check needs the client's ticket; the chain asks {@link #authenticate(AuthRequest, CheckTicket)}. */
    @Override
    public CompletionStage<Identity> authenticate(AuthRequest request) {
        throw new UnsupportedOperationException("asked by AuthChain with the client's CheckTicket");
    }

    @Override
    public CompletionStage<Identity> authenticate(AuthRequest request, CheckTicket ticket) {
        String user = request.user();
        ServerConfig.UserCredential credential = user == null ? null : users.get(user);
        if (credential == null) {
            return CompletableFuture.completedFuture(null);
        }
        Identity identity = new Identity(user, credential.scope(), permissions.get(user));
        return PasswordCheck.matches(credential, request.password(), pool, ticket)
                .thenCompose(matches -> matches ? CompletableFuture.completedFuture(identity)
                        : CompletableFuture.failedFuture(new AuthenticationException(AuthFailure.BAD_PASSWORD,
                                "wrong password for user '" + identity.name() + "'")));
    }
}
