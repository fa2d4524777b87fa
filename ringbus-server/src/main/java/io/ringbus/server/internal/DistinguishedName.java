package io.ringbus.server.internal;

import org.bouncycastle.asn1.ASN1BMPString;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1IA5String;
import org.bouncycastle.asn1.ASN1NumericString;
import org.bouncycastle.asn1.ASN1PrintableString;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.ASN1T61String;
import org.bouncycastle.asn1.ASN1UTF8String;
import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * A distinguished name as nats-server 2.9 compares a {@code verify_and_map} user name with a
 * certificate's subject: a list of RDNs in RFC 2253 order (the last RDN of the certificate's
 * subject first), each a list of attributes. Attribute types compare without regard to case,
 * values exactly (no case folding, no whitespace normalisation beyond the parser's).
 *
 * <p>A user name is parsed by {@link #parse} with nats-server's grammar: {@code type=value} pairs
 * separated by {@code ,} (next RDN) or {@code +} (same RDN); spaces before a type or a value and
 * unescaped trailing spaces are dropped; {@code \} escapes one of {@code  "#+,;<=>\} or two hex
 * digits (a byte of the UTF-8 value); a {@code #}-encoded value is refused. A certificate's
 * subject converts ({@link #ofSubject}) only when every attribute is one of CN, SERIALNUMBER, C,
 * L, ST, STREET, O, OU, POSTALCODE, DC with a string value. Threading: immutable.
 *
 * @param rdns the RDNs in RFC 2253 order
 */
record DistinguishedName(List<List<Attribute>> rdns) {
    /** Object identifiers nats-server 2.9 names in a subject; any other type leaves the DN unusable. */
    static final Map<String, String> TYPE_NAMES = Map.of("2.5.4.3", "CN", "2.5.4.5", "SERIALNUMBER",
            "2.5.4.6", "C", "2.5.4.7", "L", "2.5.4.8", "ST", "2.5.4.9", "STREET", "2.5.4.10", "O", "2.5.4.11", "OU",
            "2.5.4.17", "POSTALCODE", "0.9.2342.19200300.100.1.25", "DC");
    private static final String ESCAPED_AS_IS = " \"#+,;<=>\\";

    /**
     * One attribute of an RDN.
     *
     * @param type  e.g. {@code CN}
     * @param value the value, unescaped
     */
    record Attribute(String type, String value) {
        boolean sameAs(Attribute other) {
            return type.equalsIgnoreCase(other.type) && value.equals(other.value);
        }
    }

    DistinguishedName {
        rdns = rdns.stream().map(List::copyOf).toList();
    }

    /**
     * @param name a configured user name
     * @return its DN, or {@code null} when it is not one (e.g. {@code root}, {@code alice@example.com})
     */
    static DistinguishedName parse(String name) {
        byte[] text = name.getBytes(StandardCharsets.UTF_8);
        List<List<Attribute>> rdns = new ArrayList<>();
        List<Attribute> rdn = new ArrayList<>();
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int trailingSpaces = 0;
        String type = "";
        for (int i = 0; i < text.length; i++) {
            byte c = text[i];
            if (c == '\\') {
                if (i + 1 >= text.length) {
                    break; // a trailing lone backslash is dropped, as nats-server does
                }
                byte next = text[++i];
                trailingSpaces = 0;
                if (ESCAPED_AS_IS.indexOf(next) >= 0) {
                    buffer.write(next);
                } else if (i + 1 < text.length && HexFormat.isHexDigit(next) && HexFormat.isHexDigit(text[i + 1])) {
                    buffer.write(HexFormat.fromHexDigits(new String(text, i, 2, StandardCharsets.US_ASCII)));
                    i++;
                } else {
                    return null;
                }
            } else if (c == '=') {
                type = take(buffer, trailingSpaces);
                trailingSpaces = 0;
                if (i + 1 < text.length && text[i + 1] == '#') {
                    return null; // BER-encoded values are not supported
                }
            } else if (c == ',' || c == '+') {
                if (type.isEmpty()) {
                    return null;
                }
                rdn.add(new Attribute(type, take(buffer, trailingSpaces)));
                trailingSpaces = 0;
                type = "";
                if (c == ',') {
                    rdns.add(rdn);
                    rdn = new ArrayList<>();
                }
            } else if (!(c == ' ' && buffer.size() == 0)) {
                trailingSpaces = c == ' ' ? trailingSpaces + 1 : 0;
                buffer.write(c);
            }
        }
        if (buffer.size() > 0) {
            if (type.isEmpty()) {
                return null;
            }
            rdn.add(new Attribute(type, take(buffer, trailingSpaces)));
            rdns.add(rdn);
        }
        return new DistinguishedName(rdns);
    }

    private static String take(ByteArrayOutputStream buffer, int trailingSpaces) {
        byte[] bytes = buffer.toByteArray();
        buffer.reset();
        return new String(bytes, 0, bytes.length - trailingSpaces, StandardCharsets.UTF_8);
    }

    /**
     * @param subject a certificate's subject, as encoded
     * @return its DN in RFC 2253 order, or {@code null} when an attribute has another type or a
     *         value that is not a string
     */
    static DistinguishedName ofSubject(X500Name subject) {
        List<List<Attribute>> rdns = new ArrayList<>();
        RDN[] encoded = subject.getRDNs();
        for (int i = encoded.length - 1; i >= 0; i--) {
            AttributeTypeAndValue[] attributes = encoded[i].getTypesAndValues();
            if (attributes.length == 0) {
                continue;
            }
            List<Attribute> rdn = new ArrayList<>();
            for (int j = attributes.length - 1; j >= 0; j--) {
                String type = TYPE_NAMES.get(attributes[j].getType().getId());
                String value = stringValue(attributes[j].getValue());
                if (type == null || value == null) {
                    return null;
                }
                rdn.add(new Attribute(type, value));
            }
            rdns.add(rdn);
        }
        return new DistinguishedName(rdns);
    }

    /** @return the value when ASN.1 holds it as a string nats-server (Go's asn1) reads as one, else {@code null} */
    static String stringValue(ASN1Encodable value) {
        boolean text = value instanceof ASN1PrintableString || value instanceof ASN1UTF8String
                || value instanceof ASN1IA5String || value instanceof ASN1T61String
                || value instanceof ASN1NumericString || value instanceof ASN1BMPString;
        return text ? ((ASN1String) value).getString() : null;
    }

    /** @return whether both have the same RDNs in the same order */
    boolean sameInOrder(DistinguishedName other) {
        if (rdns.size() != other.rdns.size()) {
            return false;
        }
        for (int i = 0; i < rdns.size(); i++) {
            if (!sameRdn(rdns.get(i), other.rdns.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** @return whether both have as many RDNs and each of this one's is among the other's, in any order */
    boolean sameInAnyOrder(DistinguishedName other) {
        if (rdns.size() != other.rdns.size()) {
            return false;
        }
        return rdns.stream().allMatch(mine -> other.rdns.stream().anyMatch(theirs -> sameRdn(mine, theirs)));
    }

    private static boolean sameRdn(List<Attribute> a, List<Attribute> b) {
        return a.size() == b.size() && containsAll(a, b) && containsAll(b, a);
    }

    private static boolean containsAll(List<Attribute> in, List<Attribute> wanted) {
        return wanted.stream().allMatch(w -> in.stream().anyMatch(w::sameAs));
    }
}
