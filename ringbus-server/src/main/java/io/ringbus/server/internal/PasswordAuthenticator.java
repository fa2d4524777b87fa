package io.ringbus.server.internal;

import io.ringbus.server.AuthFailure;
import io.ringbus.server.AuthRequest;
import io.ringbus.server.AuthenticationException;
import io.ringbus.server.Identity;
import io.ringbus.server.Permissions;
import io.ringbus.server.ServerConfig;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Configured users and passwords. A password may be a bcrypt hash ({@code $2a$}, {@code $2b$},
 * {@code $2y$}), as NATS allows: that check takes tens of milliseconds, so it runs on
 * {@code slowChecks}, never on the event loop that asked. A plain password is compared in
 * constant time. An unknown user is not this authenticator's to refuse: a plug-in may know it;
 * a known user with the wrong password is refused.
 */
final class PasswordAuthenticator implements InlineAuthenticator {
    private final Map<String, ServerConfig.UserCredential> users;
    private final Map<String, Permissions> permissions;
    private final Executor slowChecks;

    PasswordAuthenticator(Map<String, ServerConfig.UserCredential> users, Map<String, Permissions> permissions,
                          Executor slowChecks) {
        this.users = users;
        this.permissions = permissions;
        this.slowChecks = slowChecks;
    }

    @Override
    public CompletionStage<Identity> authenticate(AuthRequest request) {
        String user = request.user();
        ServerConfig.UserCredential credential = user == null ? null : users.get(user);
        if (credential == null) {
            return CompletableFuture.completedFuture(null);
        }
        Identity identity = new Identity(user, credential.scope(), permissions.get(user));
        String given = request.password() == null ? "" : request.password();
        if (credential.bcrypt()) {
            return CompletableFuture.supplyAsync(
                    () -> OpenBSDBCrypt.checkPassword(credential.password(), given.toCharArray()), slowChecks)
                    .thenCompose(matches -> answer(matches, identity));
        }
        boolean matches = MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
                credential.password().getBytes(StandardCharsets.UTF_8));
        return answer(matches, identity);
    }

    private static CompletableFuture<Identity> answer(boolean matches, Identity identity) {
        return matches ? CompletableFuture.completedFuture(identity) : CompletableFuture.failedFuture(
                new AuthenticationException(AuthFailure.BAD_PASSWORD, "wrong password for user '" + identity.name() + "'"));
    }
}
