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
 * {@code verify_and_map}, as nats-server 2.9 has it: the client certificate, verified in the TLS
 * handshake, names the user ({@link CertificateUsers}) and is the client's only credential. A
 * mapped client needs no password, and CONNECT's {@code user} and {@code pass} are not looked at;
 * a certificate that names no configured user is refused ({@link AuthFailure#CERTIFICATE_NOT_MAPPED})
 * whatever else CONNECT carries, so no later authenticator (a password, a token, the plug-in) is
 * asked. The one exception is nats-server's too: a client that presents an NKEY while NKEYs are
 * configured is left to the NKEY check.
 */
final class CertificateAuthenticator implements InlineAuthenticator {
    private final Map<String, ServerConfig.UserCredential> users;
    private final Map<String, Permissions> permissions;
    private final boolean nkeysConfigured;

    CertificateAuthenticator(Map<String, ServerConfig.UserCredential> users, Map<String, Permissions> permissions,
                             boolean nkeysConfigured) {
        this.users = users;
        this.permissions = permissions;
        this.nkeysConfigured = nkeysConfigured;
    }

    @Override
    public CompletionStage<Identity> authenticate(AuthRequest request) {
        if (nkeysConfigured && request.nkey() != null) {
            return CompletableFuture.completedFuture(null);
        }
        if (request.certificates().isEmpty()) {
            return CompletableFuture.failedFuture(new AuthenticationException(AuthFailure.CERTIFICATE_NOT_MAPPED,
                    "verify_and_map: no client certificate"));
        }
        String user = CertificateUsers.userOf(request.certificates().getFirst(), users.keySet());
        if (user == null) {
            return CompletableFuture.failedFuture(new AuthenticationException(AuthFailure.CERTIFICATE_NOT_MAPPED,
                    "certificate " + request.certificates().getFirst().getSubjectX500Principal().getName()
                            + " names no user"));
        }
        return CompletableFuture.completedFuture(new Identity(user, users.get(user).scope(), permissions.get(user)));
    }
}
