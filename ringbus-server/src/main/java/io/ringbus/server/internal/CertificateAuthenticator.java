package io.ringbus.server.internal;

import io.ringbus.server.AuthRequest;
import io.ringbus.server.Identity;
import io.ringbus.server.Permissions;
import io.ringbus.server.ServerConfig;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code verify_and_map}: the client certificate, verified in the TLS handshake, names the user
 * (see {@link CertificateUsers}); no password is needed. A certificate that names no configured
 * user leaves the client to the authenticators after this one.
 */
final class CertificateAuthenticator implements InlineAuthenticator {
    private final Map<String, ServerConfig.UserCredential> users;
    private final Map<String, Permissions> permissions;

    CertificateAuthenticator(Map<String, ServerConfig.UserCredential> users, Map<String, Permissions> permissions) {
        this.users = users;
        this.permissions = permissions;
    }

    @Override
    public CompletionStage<Identity> authenticate(AuthRequest request) {
        String user = request.certificates().isEmpty() ? null
                : CertificateUsers.userOf(request.certificates().getFirst(), users.keySet());
        return CompletableFuture.completedFuture(
                user == null ? null : new Identity(user, users.get(user).scope(), permissions.get(user)));
    }
}
