package io.ringbus.core.spi;

import javax.net.ssl.SSLContext;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link FederationProvider} makes a link from: the servers of the cluster the nodes share,
 * and how to reach them. Every field but {@code servers} may be {@code null}: the link's default.
 *
 * @param servers       the servers' URLs, comma-separated (at least one)
 * @param user          the user to authenticate as, or {@code null}
 * @param password      the user's password, or {@code null} (only with {@code user})
 * @param token         an authentication token, or {@code null}
 * @param tls           TLS to the servers, or {@code null} for the link's default
 * @param reconnectWait the wait between reconnect attempts, or {@code null}
 * @param maxReconnects reconnect attempts ({@code -1}: for ever), or {@code null}
 */
public record FederationOptions(String servers, String user, String password, String token, SSLContext tls,
                                Duration reconnectWait, Integer maxReconnects) {
    /**
     * @throws IllegalArgumentException when {@code servers} is blank, or a password comes without a user
     */
    public FederationOptions {
        Objects.requireNonNull(servers, "servers");
        if (servers.isBlank()) {
            throw new IllegalArgumentException("federation servers must name at least one URL: '" + servers + "'");
        }
        if (password != null && user == null) {
            throw new IllegalArgumentException("a federation password needs a user");
        }
    }

    /**
     * @param servers the servers' URLs, comma-separated
     * @return options with the servers only: everything else at the link's default
     */
    public static FederationOptions of(String servers) {
        return new FederationOptions(servers, null, null, null, null, null, null);
    }
}
