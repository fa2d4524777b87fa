package io.ringbus.server.internal.monitor;

import io.ringbus.core.Scope;
import io.ringbus.server.ServerConfig;
import io.ringbus.server.internal.CheckTicket;
import io.ringbus.server.internal.CostlyCheckPool;
import io.ringbus.server.internal.PasswordCheck;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Checks a monitoring request's {@code Authorization} header against the server's credentials:
 * {@code Bearer <token>} for a configured token, {@code Basic base64(user:password)} for a
 * configured user. What a credential may read depends on its scope (see {@link MonitorHandler}).
 * Every comparison is constant-time and every token and user name is compared (no early exit), as
 * the NATS port's authentication does, so response times give no hint of how much matched. A
 * bcrypt password is checked on the server's {@link CostlyCheckPool}, as the NATS port's are, never
 * on the monitor's event loop; the answer then comes through the returned stage.
 */
final class MonitorAuth {
    private static final CompletableFuture<Scope> NONE = CompletableFuture.completedFuture(null);

    private final ServerConfig config;
    private final CostlyCheckPool pool;

    MonitorAuth(ServerConfig config, CostlyCheckPool pool) {
        this.config = config;
        this.pool = pool;
    }

    /** @return whether requests need a credential (tokens or users are configured) */
    boolean required() {
        return config.authRequired();
    }

    /**
     * @param authorization the request's header, or {@code null}
     * @param ticket        the client's claim on the pool, for a bcrypt check
     * @return the scope of the credential the header names, {@code null} when it names none;
     *         complete at once unless a bcrypt check runs, which may fail with the pool's
     *         refusal, timeout or cancellation
     */
    CompletableFuture<Scope> scopeOf(String authorization, CheckTicket ticket) {
        if (authorization == null) {
            return NONE;
        }
        int space = authorization.indexOf(' ');
        if (space <= 0) {
            return NONE;
        }
        String scheme = authorization.substring(0, space).toLowerCase(Locale.ROOT);
        String credential = authorization.substring(space + 1).trim();
        return switch (scheme) {
            case "bearer" -> CompletableFuture.completedFuture(tokenScope(credential.getBytes(StandardCharsets.UTF_8)));
            case "basic" -> userScope(credential, ticket);
            default -> NONE;
        };
    }

    private Scope tokenScope(byte[] given) {
        Scope found = null;
        for (Map.Entry<String, Scope> token : config.tokens().entrySet()) {
            if (MessageDigest.isEqual(given, token.getKey().getBytes(StandardCharsets.UTF_8))) {
                found = token.getValue();
            }
        }
        return found;
    }

    private CompletableFuture<Scope> userScope(String base64, CheckTicket ticket) {
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            return NONE;
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return NONE;
        }
        byte[] name = decoded.substring(0, colon).getBytes(StandardCharsets.UTF_8);
        ServerConfig.UserCredential found = null;
        for (Map.Entry<String, ServerConfig.UserCredential> user : config.users().entrySet()) {
            if (MessageDigest.isEqual(name, user.getKey().getBytes(StandardCharsets.UTF_8))) {
                found = user.getValue();
            }
        }
        if (found == null) {
            return NONE;
        }
        Scope scope = found.scope();
        return PasswordCheck.matches(found, decoded.substring(colon + 1), pool, ticket)
                .thenApply(matches -> matches ? scope : null);
    }
}
