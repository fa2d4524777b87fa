package io.ringbus.server.internal;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
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
     * @param certificate the verified peer certificate
     * @param users       the configured user names
     * @return the first configured user the certificate names, or {@code null}
     */
    static String userOf(X509Certificate certificate, Set<String> users) {
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
