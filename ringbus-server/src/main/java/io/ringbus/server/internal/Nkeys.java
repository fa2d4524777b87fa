package io.ringbus.server.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;

/**
 * NATS NKEYs for user authentication: Ed25519 keys written as base32 strings with a one-byte type
 * prefix and a CRC-16 checksum (a user's public key starts with {@code U}). The server sends a
 * random {@code nonce} in INFO; the client signs it with its seed and sends {@code nkey} and
 * {@code sig} (base64url, unpadded) in CONNECT. Verified with the JDK's Ed25519, no secret on the
 * wire.
 *
 * <p>Encoding: base32 (RFC 4648 alphabet, no padding) of {@code prefix(1) key(32) crc16(2)}, the
 * CRC-16/XMODEM of the first 33 bytes, little-endian. Threading: static methods without state.
 */
public final class Nkeys {
    /** The prefix byte of a user public key ({@code 'U'} once encoded). */
    static final int PREFIX_USER = 20 << 3;
    private static final String BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    /** DER header of an X.509 SubjectPublicKeyInfo for Ed25519, before the 32 key bytes. */
    private static final byte[] X509_ED25519 = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
    private static final SecureRandom RANDOM = new SecureRandom();

    private Nkeys() {
    }

    /**
     * Checks a user's public NKEY.
     *
     * @param publicKey the key, e.g. {@code UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4}
     * @return the 32 raw Ed25519 key bytes
     * @throws IllegalArgumentException naming the key when it is not a valid user public key
     */
    public static byte[] decodeUserKey(String publicKey) {
        byte[] raw = base32(publicKey);
        if (raw == null || raw.length != 35 || (raw[0] & 0xff) != PREFIX_USER) {
            throw new IllegalArgumentException("not an NKEY user public key (U...): nkey=" + publicKey);
        }
        int expected = (raw[33] & 0xff) | (raw[34] & 0xff) << 8;
        if (crc16(raw, 33) != expected) {
            throw new IllegalArgumentException("NKEY checksum mismatch: nkey=" + publicKey);
        }
        byte[] key = new byte[32];
        System.arraycopy(raw, 1, key, 0, 32);
        return key;
    }

    /** @return a fresh nonce for INFO: 11 random bytes, base64url without padding (as nats-server's length) */
    static String nonce() {
        byte[] bytes = new byte[11];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * @param key       the raw 32-byte public key
     * @param nonce     the nonce the server sent
     * @param signature the client's {@code sig}, base64url (padded or not) or standard base64
     * @return whether {@code signature} is the key's Ed25519 signature of the nonce's bytes
     */
    static boolean verify(byte[] key, String nonce, String signature) {
        if (signature == null || nonce == null) {
            return false;
        }
        try {
            byte[] sig = decodeSignature(signature);
            byte[] der = new byte[X509_ED25519.length + 32];
            System.arraycopy(X509_ED25519, 0, der, 0, X509_ED25519.length);
            System.arraycopy(key, 0, der, X509_ED25519.length, 32);
            PublicKey publicKey = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
            Signature verifier = Signature.getInstance("Ed25519");
            verifier.initVerify(publicKey);
            verifier.update(nonce.getBytes(StandardCharsets.UTF_8));
            return verifier.verify(sig);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false; // a malformed signature is a failed one
        }
    }

    private static byte[] decodeSignature(String signature) {
        String s = signature.replace('+', '-').replace('/', '_');
        while (s.endsWith("=")) {
            s = s.substring(0, s.length() - 1);
        }
        return Base64.getUrlDecoder().decode(s);
    }

    /** @return the bytes, or null when {@code text} is not unpadded base32 */
    private static byte[] base32(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        byte[] out = new byte[text.length() * 5 / 8];
        int buffer = 0;
        int bits = 0;
        int n = 0;
        for (int i = 0; i < text.length(); i++) {
            int value = BASE32.indexOf(text.charAt(i));
            if (value < 0) {
                return null;
            }
            buffer = buffer << 5 | value;
            bits += 5;
            if (bits >= 8) {
                bits -= 8;
                if (n < out.length) {
                    out[n++] = (byte) (buffer >> bits);
                }
                buffer &= (1 << bits) - 1;
            }
        }
        return out;
    }

    /** CRC-16/XMODEM (polynomial 0x1021, initial 0), as the NKEY format uses. */
    private static int crc16(byte[] data, int length) {
        int crc = 0;
        for (int i = 0; i < length; i++) {
            crc ^= (data[i] & 0xff) << 8;
            for (int b = 0; b < 8; b++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc;
    }
}
