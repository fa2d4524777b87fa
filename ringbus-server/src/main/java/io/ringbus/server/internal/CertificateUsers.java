package io.ringbus.server.internal;

import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * {@code verify_and_map}: the user a verified client certificate names, by nats-server 2.9's rules
 * ({@code checkClientTLSCertSubject}), the first that names a configured user winning:
 * <ol>
 *   <li>each email alternative name, then each DNS name, then each URI, compared exactly;</li>
 *   <li>the subject as a {@link DistinguishedName} in RFC 2253 order, equal to a user name that
 *       parses as one (types without regard to case, values exactly), first in the same RDN order,
 *       then in any order (a DN written the other way round, as {@code openssl -subj} lists it);</li>
 *   <li>the subject spelled as Go's {@code pkix.Name.ToRDNSequence().String()} spells it (only
 *       SERIALNUMBER, CN, OU, O, POSTALCODE, STREET, L, ST, C, in that order), followed by the
 *       subject's DC values ({@code ,DC=...}, in certificate order) when it has any; then the same
 *       spelling without them.</li>
 * </ol>
 * A bare CN names no one ({@code CN=alice} maps to the user {@code CN=alice}, never to {@code alice}),
 * and a certificate without an email name, a URI or a subject names no one. Threading: static
 * methods without state.
 */
final class CertificateUsers {
    private static final int SAN_EMAIL = 1;
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;
    private static final String DC_OID = "0.9.2342.19200300.100.1.25";
    /** Go's spelling order: the reverse of the order {@code ToRDNSequence} builds the sequence in. */
    private static final String[] GO_ORDER = {"2.5.4.5", "2.5.4.3", "2.5.4.11", "2.5.4.10", "2.5.4.17", "2.5.4.9",
        "2.5.4.7", "2.5.4.8", "2.5.4.6"};
    /** Go keeps one value of these (the last), all values of the others. */
    private static final Set<String> SINGLE_VALUED = Set.of("2.5.4.3", "2.5.4.5");

    private CertificateUsers() {
    }

    /**
     * @param certificate the verified peer certificate
     * @param users       the configured user names
     * @return the configured user the certificate names, or {@code null}
     */
    static String userOf(X509Certificate certificate, Set<String> users) {
        X500Name subject = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
        List<String> alternatives = alternativeNames(certificate);
        boolean hasSubject = subject.getRDNs().length > 0
                && List.of(subject.getRDNs()).stream().anyMatch(rdn -> rdn.size() > 0);
        boolean hasEmailOrUri = alternatives.stream().anyMatch(name -> !name.startsWith(SAN_DNS + ":"));
        if (!hasSubject && !hasEmailOrUri) {
            return null;
        }
        for (String alternative : alternatives) {
            String name = alternative.substring(alternative.indexOf(':') + 1);
            if (users.contains(name)) {
                return name;
            }
        }
        String byDn = userByDn(DistinguishedName.ofSubject(subject), users);
        if (byDn != null) {
            return byDn;
        }
        String spelled = goSpelling(subject);
        String dcs = domainComponents(subject);
        if (!dcs.isEmpty() && users.contains(spelled + "," + dcs)) {
            return spelled + "," + dcs;
        }
        return users.contains(spelled) ? spelled : null;
    }

    /** @return the email names, then the DNS names, then the URIs, each as {@code kind:name} */
    private static List<String> alternativeNames(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (int kind : new int[] {SAN_EMAIL, SAN_DNS, SAN_URI}) {
                    for (List<?> alternative : alternatives) {
                        if (alternative.size() == 2 && Integer.valueOf(kind).equals(alternative.get(0))) {
                            names.add(kind + ":" + alternative.get(1));
                        }
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // no usable alternative names: the subject still may name the user
        }
        return names;
    }

    private static String userByDn(DistinguishedName subject, Set<String> users) {
        if (subject == null) {
            return null;
        }
        Map<String, DistinguishedName> parsed = new LinkedHashMap<>();
        for (String user : users) {
            DistinguishedName dn = DistinguishedName.parse(user);
            if (dn != null) {
                if (dn.sameInOrder(subject)) {
                    return user;
                }
                parsed.put(user, dn);
            }
        }
        for (Map.Entry<String, DistinguishedName> user : parsed.entrySet()) {
            if (user.getValue().sameInAnyOrder(subject)) {
                return user.getKey();
            }
        }
        return null;
    }

    /** @return the subject as Go's {@code pkix.Name} spells it after parsing a certificate */
    static String goSpelling(X500Name subject) {
        StringJoiner spelled = new StringJoiner(",");
        for (String oid : GO_ORDER) {
            List<String> values = new ArrayList<>();
            for (RDN rdn : subject.getRDNs()) {
                for (AttributeTypeAndValue attribute : rdn.getTypesAndValues()) {
                    String value = DistinguishedName.stringValue(attribute.getValue());
                    if (value != null && attribute.getType().getId().equals(oid)) {
                        if (SINGLE_VALUED.contains(oid)) {
                            values.clear();
                        }
                        values.add(value);
                    }
                }
            }
            if (SINGLE_VALUED.contains(oid) && values.size() == 1 && values.getFirst().isEmpty()) {
                continue; // Go leaves out an empty CN or serial number
            }
            if (!values.isEmpty()) {
                StringJoiner rdn = new StringJoiner("+");
                String type = DistinguishedName.TYPE_NAMES.get(oid);
                values.forEach(value -> rdn.add(type + "=" + goEscaped(value)));
                spelled.add(rdn.toString());
            }
        }
        return spelled.toString();
    }

    /** Go escapes {@code ,+"\<>;} anywhere, a space first or last and a {@code #} first. */
    private static String goEscaped(String value) {
        StringBuilder escaped = new StringBuilder(value.length() + 4);
        for (int k = 0; k < value.length(); k++) {
            char c = value.charAt(k);
            boolean escape = switch (c) {
                case ',', '+', '"', '\\', '<', '>', ';' -> true;
                case ' ' -> k == 0 || k == value.length() - 1;
                case '#' -> k == 0;
                default -> false;
            };
            if (escape) {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }

    /** @return {@code DC=a,DC=b} for the subject's DC values in certificate order, or empty */
    private static String domainComponents(X500Name subject) {
        StringJoiner dcs = new StringJoiner(",");
        for (RDN rdn : subject.getRDNs()) {
            for (AttributeTypeAndValue attribute : rdn.getTypesAndValues()) {
                String value = DistinguishedName.stringValue(attribute.getValue());
                if (value != null && attribute.getType().getId().equals(DC_OID)) {
                    dcs.add("DC=" + value);
                }
            }
        }
        return dcs.toString();
    }
}
