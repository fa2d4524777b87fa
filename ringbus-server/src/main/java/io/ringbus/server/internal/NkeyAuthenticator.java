package io.ringbus.server.internal;

import io.ringbus.core.Scope;
import io.ringbus.server.AuthFailure;
import io.ringbus.server.AuthRequest;
import io.ringbus.server.AuthenticationException;
import io.ringbus.server.Identity;
import io.ringbus.server.Permissions;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * NKEY users: the client signs the nonce of its connection's INFO with its seed and sends the
 * public key and the signature. Only configured keys (so only valid ones) are decoded; an unknown
 * key is not this authenticator's to refuse, a configured one with a bad signature is refused.
 */
final class NkeyAuthenticator implements InlineAuthenticator {
    private final Map<String, Scope> nkeys;
    private final Map<String, Permissions> permissions;

    NkeyAuthenticator(Map<String, Scope> nkeys, Map<String, Permissions> permissions) {
        this.nkeys = nkeys;
        this.permissions = permissions;
    }

    @Override
    public CompletionStage<Identity> authenticate(AuthRequest request) {
        Scope scope = request.nkey() == null ? null : nkeys.get(request.nkey());
        if (scope == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (!Nkeys.verify(Nkeys.decodeUserKey(request.nkey()), request.nonce(), request.signature())) {
            return CompletableFuture.failedFuture(new AuthenticationException(AuthFailure.BAD_SIGNATURE,
                    "missing or wrong signature of the nonce for NKEY " + request.nkey()));
        }
        return CompletableFuture.completedFuture(new Identity(request.nkey(), scope, permissions.get(request.nkey())));
    }
}
