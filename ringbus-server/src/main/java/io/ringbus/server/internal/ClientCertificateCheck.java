package io.ringbus.server.internal;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509TrustManager;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

/**
 * With {@code tls.verify}: the client certificates of a completed handshake checked again, the way
 * the handshake checks them (the CA's trust manager: chain, validity dates, key usage), now. A
 * full handshake passes again; a resumed one (a session ticket or the session cache, in TLS 1.2
 * or 1.3) never showed its certificate, so this is the only check it gets: a client whose
 * certificate expired (or whose CA was replaced by a reload) since the session was made is
 * refused, as nats-server refuses it. Threading: static, without state; called on the
 * connection's event loop once per handshake.
 */
final class ClientCertificateCheck {
    private ClientCertificateCheck() {
    }

    /**
     * @param session the session of a completed handshake
     * @param trust   the trust manager of the context the connection was accepted with
     * @return why the client is refused, or {@code null} when its certificates pass
     */
    static String refusal(SSLSession session, X509TrustManager trust) {
        Certificate[] presented;
        try {
            presented = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return "no client certificate in the session";
        }
        if (presented == null || presented.length == 0) {
            return "no client certificate in the session";
        }
        X509Certificate[] chain = new X509Certificate[presented.length];
        for (int i = 0; i < presented.length; i++) {
            if (!(presented[i] instanceof X509Certificate certificate)) {
                return "a client certificate that is not X.509: " + presented[i].getType();
            }
            chain[i] = certificate;
        }
        try {
            trust.checkClientTrusted(chain, chain[0].getPublicKey().getAlgorithm());
            return null;
        } catch (CertificateException | IllegalArgumentException e) {
            return "certificate " + chain[0].getSubjectX500Principal().getName() + " refused: " + e.getMessage();
        }
    }
}
