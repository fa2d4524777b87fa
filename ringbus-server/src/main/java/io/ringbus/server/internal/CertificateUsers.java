package io.ringbus.server.internal;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * {@code verify_and_map}: the user a verified client certificate names, as nats-server looks for
 * it: an email alternative name, then a DNS alternative name, then the subject DN (RFC 2253), then
 * the subject's CN. Threading: static methods without state.
 */
final class CertificateUsers {
    private static final int SAN_EMAIL = 1;
    private static final int SAN_DNS = 2;

    private CertificateUsers() {
    }

    /**
     * @param session the connection's TLS session, or {@code null}
     * @param users   the configured user names
     * @return the first configured user the peer certificate names, or {@code null}
     */
    static String userOf(SSLSession session, Set<String> users) {
        if (session == null) {
            return null;
        }
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate certificate)) {
            return null;
        }
        for (String name : names(certificate)) {
            if (users.contains(name)) {
                return name;
            }
        }
        return null;
    }

    /** @return the names a certificate carries, in the order they are tried */
    static List<String> names(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (int kind : new int[] {SAN_EMAIL, SAN_DNS}) {
                    for (List<?> alternative : alternatives) {
                        if (alternative.size() == 2 && Integer.valueOf(kind).equals(alternative.get(0))) {
                            names.add(String.valueOf(alternative.get(1)));
                        }
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // no usable alternative names: the subject still may name the user
        }
        String dn = certificate.getSubjectX500Principal().getName();
        names.add(dn);
        try {
            for (Rdn rdn : new LdapName(dn).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    names.add(String.valueOf(rdn.getValue()));
                }
            }
        } catch (InvalidNameException e) {
            // the DN itself was tried
        }
        return names;
    }
}
