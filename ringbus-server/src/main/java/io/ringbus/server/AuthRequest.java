package io.ringbus.server;

import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What a client presented to authenticate: its CONNECT fields and, over TLS, its certificates.
 * The secrets it holds are the client's own; {@link #toString()} masks them.
 *
 * @param user         CONNECT's {@code user}, or {@code null}
 * @param password     CONNECT's {@code pass}, or {@code null}
 * @param token        CONNECT's {@code auth_token}, or {@code null}
 * @param nkey         CONNECT's {@code nkey}, or {@code null}
 * @param signature    CONNECT's {@code sig} over {@code nonce}, or {@code null}
 * @param nonce        the nonce this connection's INFO carried, or {@code null}
 * @param certificates the client's verified certificate chain (mutual TLS), empty without one
 * @param remote       the client's address
 * @param clientName   CONNECT's {@code name}, or {@code null}
 */
public record AuthRequest(String user, String password, String token, String nkey, String signature, String nonce,
                          List<X509Certificate> certificates, SocketAddress remote, String clientName) {
    @Override
    public String toString() {
        return "AuthRequest[user=" + user + ", password=" + (password == null ? null : "***") + ", token="
                + (token == null ? null : "***") + ", nkey=" + nkey + ", certificates=" + certificates.size()
                + ", remote=" + remote + ", clientName=" + clientName + "]";
    }
}
