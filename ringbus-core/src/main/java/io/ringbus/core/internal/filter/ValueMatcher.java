package io.ringbus.core.internal.filter;

import io.ringbus.core.wire.NatsHeaderLines;

import java.nio.charset.StandardCharsets;

/**
 * One entry of a key's value array in a filter policy: an exact value or an operator object
 * ({@code prefix}, {@code numeric}, ...). {@code exists} is not a value matcher: it is about the
 * key, and {@link KeyCondition} handles it.
 *
 * <p>A header value is always text; numeric matchers read it with {@link DecimalText}. A body
 * value is typed as JSON is ({@code String}, {@code Number}, {@code Boolean} or {@code null}), and
 * a matcher matches only values of its own type: {@code "100"} in the body is not the number 100.
 * Neither method allocates on header values (numbers with more than 15 significant digits
 * excepted, see {@link DecimalText}).
 *
 * <p>Threading: immutable, safe to call from any number of threads.
 */
abstract class ValueMatcher {

    /**
     * @param value a header value, never {@code null}
     * @return whether it matches
     */
    abstract boolean matchesText(String value);

    /**
     * Matches a header value read from an ASCII NATS header block ({@link NatsHeaderLines}). The
     * matchers override this to compare the bytes in place; this fallback, for a policy operand
     * that is not ASCII where case folding could still match, builds the String.
     *
     * @param block the ASCII block
     * @param from  the value's first byte
     * @param to    after its last byte
     * @return what {@link #matchesText} returns for the same value
     */
    boolean matchesAscii(byte[] block, int from, int to) {
        return matchesText(new String(block, from, to - from, StandardCharsets.ISO_8859_1));
    }

    /** @return the text's bytes when it is all ASCII, else {@code null} (it then equals no ASCII value) */
    static byte[] ascii(String text) {
        byte[] bytes = new byte[text.length()];
        for (int i = 0; i < bytes.length; i++) {
            char c = DecimalText.charAt(text, i);
            if (c >= 128) {
                return null;
            }
            bytes[i] = (byte) c;
        }
        return bytes;
    }

    /** @return whether {@code block[at, at + bytes.length)} is {@code bytes}, within {@code [from, to)} */
    static boolean regionEquals(byte[] block, int from, int to, int at, byte[] bytes) {
        if (bytes == null || at < from || at + bytes.length > to) {
            return false;
        }
        for (int i = 0; i < bytes.length; i++) {
            if (block[at + i] != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param value a JSON body value: a {@code String} (or other {@code CharSequence}), a
     *              {@code Number}, a {@code Boolean} or {@code null}; any other object never matches
     * @return whether it matches
     */
    abstract boolean matchesValue(Object value);

    static boolean isScalar(Object value) {
        return value instanceof CharSequence || value instanceof Number || value instanceof Boolean;
    }

    static String textOf(Object value) {
        return value instanceof CharSequence text ? text.toString() : null;
    }

    /** An exact string: {@code "eu"}. */
    static final class ExactText extends ValueMatcher {
        private final String expected;
        private final byte[] expectedAscii;

        ExactText(String expected) {
            this.expected = expected;
            this.expectedAscii = ascii(expected);
        }

        String expected() {
            return expected;
        }

        @Override
        boolean matchesText(String value) {
            return expected.equals(value);
        }

        @Override
        boolean matchesAscii(byte[] block, int from, int to) {
            return expectedAscii != null && to - from == expectedAscii.length
                    && regionEquals(block, from, to, from, expectedAscii);
        }

        @Override
        boolean matchesValue(Object value) {
            return expected.equals(textOf(value));
        }
    }

    /** An exact number: {@code 100}; a header matches when it reads as the same number ({@code 1e2}). */
    static final class ExactNumber extends ValueMatcher {
        private final double expected;

        ExactNumber(double expected) {
            this.expected = expected;
        }

        @Override
        boolean matchesText(String value) {
            return DecimalText.parse(value) == expected;
        }

        @Override
        boolean matchesAscii(byte[] block, int from, int to) {
            return DecimalText.parse(block, from, to) == expected;
        }

        @Override
        boolean matchesValue(Object value) {
            return value instanceof Number number && number.doubleValue() == expected;
        }
    }

    /** An exact boolean: {@code true}; a header matches the text {@code true} or {@code false}. */
    static final class ExactBoolean extends ValueMatcher {
        private final boolean expected;

        ExactBoolean(boolean expected) {
            this.expected = expected;
        }

        private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
        private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};

        @Override
        boolean matchesText(String value) {
            return (expected ? "true" : "false").equals(value);
        }

        @Override
        boolean matchesAscii(byte[] block, int from, int to) {
            byte[] text = expected ? TRUE : FALSE;
            return to - from == text.length && regionEquals(block, from, to, from, text);
        }

        @Override
        boolean matchesValue(Object value) {
            return value instanceof Boolean bool && bool == expected;
        }
    }

    /** {@code null}: a JSON null in the body (body policies only). */
    static final class ExactNull extends ValueMatcher {
        @Override
        boolean matchesText(String value) {
            return false;
        }

        @Override
        boolean matchesAscii(byte[] block, int from, int to) {
            return false;
        }

        @Override
        boolean matchesValue(Object value) {
            return value == null;
        }
    }

    /** {@code {"prefix": "eu-"}}, {@code {"suffix": ".png"}}, {@code {"equals-ignore-case": "EU"}}. */
    static final class TextOperator extends ValueMatcher {
        enum Kind { PREFIX, SUFFIX, EQUALS_IGNORE_CASE }

        private final Kind kind;
        private final String operand;
        private final byte[] operandAscii;

        TextOperator(Kind kind, String operand) {
            this.kind = kind;
            this.operand = operand;
            this.operandAscii = ascii(operand);
        }

        @Override
        boolean matchesAscii(byte[] block, int from, int to) {
            byte[] bytes = operandAscii;
            return switch (kind) {
                case PREFIX -> regionEquals(block, from, to, from, bytes);
                case SUFFIX -> bytes != null && regionEquals(block, from, to, to - bytes.length, bytes);
                // A non-ASCII operand may still fold to ASCII (the Kelvin sign to k): the String path decides.
                case EQUALS_IGNORE_CASE -> bytes == null ? super.matchesAscii(block, from, to)
                        : to - from == bytes.length && equalsIgnoreAsciiCase(block, from, bytes);
            };
        }

        private static boolean equalsIgnoreAsciiCase(byte[] block, int from, byte[] bytes) {
            for (int i = 0; i < bytes.length; i++) {
                int a = block[from + i];
                int b = bytes[i];
                if (a != b && toLowerAscii(a) != toLowerAscii(b)) {
                    return false;
                }
            }
            return true;
        }

        private static int toLowerAscii(int c) {
            return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
        }

        @Override
        boolean matchesText(String value) {
            return switch (kind) {
                case PREFIX -> value.startsWith(operand);
                case SUFFIX -> value.endsWith(operand);
                case EQUALS_IGNORE_CASE -> value.equalsIgnoreCase(operand);
            };
        }

        @Override
        boolean matchesValue(Object value) {
            String text = textOf(value);
            return text != null && matchesText(text);
        }
    }

    /** {@code {"anything-but": ...}}: a value that none of the excluded matchers matches. */
    static final class AnythingBut extends ValueMatcher {
        private final ValueMatcher[] excluded;

        AnythingBut(ValueMatcher[] excluded) {
            this.excluded = excluded;
        }

        @Override
        boolean matchesText(String value) {
            for (ValueMatcher matcher : excluded) {
                if (matcher.matchesText(value)) {
                    return false;
                }
            }
            return true;
        }

        @Override
        boolean matchesAscii(byte[] block, int from, int to) {
            for (ValueMatcher matcher : excluded) {
                if (matcher.matchesAscii(block, from, to)) {
                    return false;
                }
            }
            return true;
        }

        @Override
        boolean matchesValue(Object value) {
            if (!isScalar(value)) {
                return false;
            }
            for (ValueMatcher matcher : excluded) {
                if (matcher.matchesValue(value)) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * {@code {"numeric": [">", 0, "<=", 150]}} or {@code {"numeric": ["=", 301.5]}}: a number
     * within bounds; an absent bound is infinite. A value that is not a number never matches.
     */
    static final class NumericRange extends ValueMatcher {
        private final double lower;
        private final boolean lowerInclusive;
        private final double upper;
        private final boolean upperInclusive;

        NumericRange(double lower, boolean lowerInclusive, double upper, boolean upperInclusive) {
            this.lower = lower;
            this.lowerInclusive = lowerInclusive;
            this.upper = upper;
            this.upperInclusive = upperInclusive;
        }

        @Override
        boolean matchesText(String value) {
            return contains(DecimalText.parse(value));
        }

        @Override
        boolean matchesAscii(byte[] block, int from, int to) {
            return contains(DecimalText.parse(block, from, to));
        }

        @Override
        boolean matchesValue(Object value) {
            return value instanceof Number number && contains(number.doubleValue());
        }

        private boolean contains(double number) {
            // NaN fails every comparison: a non-numeric value is outside every range.
            boolean aboveLower = lowerInclusive ? number >= lower : number > lower;
            boolean belowUpper = upperInclusive ? number <= upper : number < upper;
            return aboveLower && belowUpper;
        }
    }

    /**
     * {@code {"cidr": "10.0.0.0/24"}}: an IPv4 address in dotted-quad form within the block. The
     * address is read from the text without allocating; anything else never matches.
     */
    static final class Ipv4Cidr extends ValueMatcher {
        private final int network;
        private final int mask;

        Ipv4Cidr(int network, int prefixLength) {
            this.mask = prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
            this.network = network & mask;
        }

        @Override
        boolean matchesText(String value) {
            return contains(parseIpv4(value, 0, value.length()));
        }

        @Override
        boolean matchesAscii(byte[] block, int from, int to) {
            return contains(parseIpv4(block, from, to));
        }

        private boolean contains(long address) {
            return address >= 0 && ((int) address & mask) == network;
        }

        @Override
        boolean matchesValue(Object value) {
            String text = textOf(value);
            return text != null && matchesText(text);
        }

        /**
         * @param text a {@code String} or an ASCII {@code byte[]}
         * @param from the first char
         * @param to   after the last char
         * @return the address as an unsigned 32-bit value, or -1 when the text is not a dotted quad
         */
        static long parseIpv4(Object text, int from, int to) {
            long address = 0;
            int octets = 0;
            int i = from;
            int length = to;
            while (octets < 4) {
                int start = i;
                int octet = 0;
                while (i < length && i - start < 3 && DecimalText.charAt(text, i) >= '0' && DecimalText.charAt(text, i) <= '9') {
                    octet = octet * 10 + (DecimalText.charAt(text, i) - '0');
                    i++;
                }
                if (i == start || octet > 255) {
                    return -1;
                }
                address = (address << 8) | octet;
                octets++;
                if (octets < 4) {
                    if (i >= length || DecimalText.charAt(text, i) != '.') {
                        return -1;
                    }
                    i++;
                }
            }
            return i == length ? address : -1;
        }
    }
}
