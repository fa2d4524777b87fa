package io.ringbus.server.internal.monitor;

import io.ringbus.core.Scope;
import io.ringbus.server.ServerConfig;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;

/**
 * Checks a monitoring request's {@code Authorization} header against the server's credentials:
 * {@code Bearer <token>} for a configured token, {@code Basic base64(user:password)} for a
 * configured user. What a credential may read depends on its scope (see {@link MonitorHandler}). Every
 * comparison is constant-time and every token is compared (no early exit), as the NATS port's
 * authentication does, so response times give no hint of how much matched. A bcrypt password
 * is checked here, on the monitor's own event loop (tens of milliseconds), only for the user the
 * request names.
 */
final class MonitorAuth {
    private final ServerConfig config;

    MonitorAuth(ServerConfig config) {
        this.config = config;
    }

    /**
     * @return the scope of the credential the header names; ROOT when auth is off (the monitor
     *         binds 127.0.0.1 by default); {@code null} when it names none
     */
    Scope scopeOf(String authorization) {
        if (!config.authRequired()) {
            return Scope.ROOT;
        }
        if (authorization == null) {
            return null;
        }
        int space = authorization.indexOf(' ');
        if (space <= 0) {
            return null;
        }
        String scheme = authorization.substring(0, space).toLowerCase(Locale.ROOT);
        String credential = authorization.substring(space + 1).trim();
        return switch (scheme) {
            case "bearer" -> tokenScope(credential.getBytes(StandardCharsets.UTF_8));
            case "basic" -> userScope(credential);
            default -> null;
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

    private Scope userScope(String base64) {
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        byte[] password = decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
        Scope found = null;
        for (Map.Entry<String, ServerConfig.UserCredential> user : config.users().entrySet()) {
            boolean nameMatches = MessageDigest.isEqual(decoded.substring(0, colon).getBytes(StandardCharsets.UTF_8),
                    user.getKey().getBytes(StandardCharsets.UTF_8));
            String stored = user.getValue().password();
            boolean passwordMatches = nameMatches && user.getValue().bcrypt()
                    ? OpenBSDBCrypt.checkPassword(stored, decoded.substring(colon + 1).toCharArray())
                    : MessageDigest.isEqual(password, stored.getBytes(StandardCharsets.UTF_8));
            if (nameMatches & passwordMatches) {
                found = user.getValue().scope();
            }
        }
        return found;
    }
}
