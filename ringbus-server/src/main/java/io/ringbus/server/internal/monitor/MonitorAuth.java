package io.ringbus.server.internal.monitor;

import io.ringbus.server.ServerConfig;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;

/**
 * Checks a monitoring request's {@code Authorization} header against the server's credentials:
 * {@code Bearer <token>} for a configured token, {@code Basic base64(user:password)} for a
 * configured user. Any configured credential may read the monitor, whatever its scope. Every
 * comparison is constant-time and every token is compared (no early exit), as the NATS port's
 * authentication does, so response times give no hint of how much matched.
 */
final class MonitorAuth {
    private final ServerConfig config;

    MonitorAuth(ServerConfig config) {
        this.config = config;
    }

    /** @return whether the request may proceed: auth is off, or the header names a credential */
    boolean allows(String authorization) {
        if (!config.authRequired()) {
            return true;
        }
        if (authorization == null) {
            return false;
        }
        int space = authorization.indexOf(' ');
        if (space <= 0) {
            return false;
        }
        String scheme = authorization.substring(0, space).toLowerCase(Locale.ROOT);
        String credential = authorization.substring(space + 1).trim();
        return switch (scheme) {
            case "bearer" -> tokenMatches(credential.getBytes(StandardCharsets.UTF_8));
            case "basic" -> userMatches(credential);
            default -> false;
        };
    }

    private boolean tokenMatches(byte[] given) {
        boolean found = false;
        for (String token : config.tokens().keySet()) {
            found |= MessageDigest.isEqual(given, token.getBytes(StandardCharsets.UTF_8));
        }
        return found;
    }

    private boolean userMatches(String base64) {
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return false;
        }
        byte[] password = decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
        boolean found = false;
        for (Map.Entry<String, ServerConfig.UserCredential> user : config.users().entrySet()) {
            boolean nameMatches = MessageDigest.isEqual(decoded.substring(0, colon).getBytes(StandardCharsets.UTF_8),
                    user.getKey().getBytes(StandardCharsets.UTF_8));
            boolean passwordMatches = MessageDigest.isEqual(password,
                    user.getValue().password().getBytes(StandardCharsets.UTF_8));
            found |= nameMatches & passwordMatches;
        }
        return found;
    }
}
