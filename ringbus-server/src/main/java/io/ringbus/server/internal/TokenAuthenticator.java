package io.ringbus.server.internal;

import io.ringbus.core.Scope;
import io.ringbus.server.AuthRequest;
import io.ringbus.server.Identity;
import io.ringbus.server.Permissions;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Configured tokens ({@code auth_token}). Every configured token is compared, in constant time,
 * so that the time taken hints neither at which one matched nor at how much of one did. An unknown
 * token is not this authenticator's to refuse: a plug-in may know it.
 */
final class TokenAuthenticator implements InlineAuthenticator {
    /** What /connz and the logs call a token's client: never the token itself. */
    static final String NAME = "token";

    private final Map<String, Scope> tokens;
    private final Map<String, Permissions> permissions;

    TokenAuthenticator(Map<String, Scope> tokens, Map<String, Permissions> permissions) {
        this.tokens = tokens;
        this.permissions = permissions;
    }

    @Override
    public CompletionStage<Identity> authenticate(AuthRequest request) {
        if (request.token() == null) {
            return CompletableFuture.completedFuture(null);
        }
        byte[] given = request.token().getBytes(StandardCharsets.UTF_8);
        Identity found = null;
        for (Map.Entry<String, Scope> token : tokens.entrySet()) {
            if (MessageDigest.isEqual(given, token.getKey().getBytes(StandardCharsets.UTF_8))) {
                found = new Identity(NAME, token.getValue(), permissions.get(token.getKey()));
            }
        }
        return CompletableFuture.completedFuture(found);
    }
}
