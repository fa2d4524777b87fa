package io.ringbus.core.internal.filter;

import java.nio.charset.StandardCharsets;

/**
 * Reads a decimal number from text without allocating, for numeric filter operators over header
 * values: a {@code String}, or an ASCII range of a NATS header block. The grammar is JSON's number with an optional leading {@code +}:
 * {@code [+-]? digits ('.' digits)? ([eE] [+-]? digits)?}, where the integer part may also be
 * absent ({@code .5}) or have leading zeros. Anything else is not a number ({@code NaN}, so that
 * every comparison with it is false).
 *
 * <p>The result is the correctly rounded {@code double}, as {@link Double#parseDouble} gives:
 * up to 15 significant digits with a decimal exponent within ±22 are exact in a {@code double}
 * and computed with one multiplication or division (Clinger's fast path); longer numbers take
 * a slow path that calls {@code Double.parseDouble} on the text, which allocates.
 *
 * <p>Threading: static and stateless.
 */
public final class DecimalText {
    /** Exactly representable powers of ten, 1e0 to 1e22. */
    private static final double[] POWERS_OF_TEN = new double[23];
    private static final long MAX_EXACT_MANTISSA = 1L << 53;
    private static final int MAX_DIGITS = 18;

    static {
        double power = 1;
        for (int i = 0; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = power;
            power *= 10;
        }
    }

    private DecimalText() {
    }

    /**
     * Parses {@code text} as a decimal number.
     *
     * @param text the text, possibly {@code null}
     * @return its value, or {@code NaN} when it is not a number in the grammar above
     */
    public static double parse(String text) {
        return text == null ? Double.NaN : parse(text, 0, text.length());
    }

    /**
     * Parses the ASCII bytes {@code block[from, to)} as a decimal number.
     *
     * @param block the bytes
     * @param from  the first byte
     * @param to    after the last byte
     * @return its value, or {@code NaN} when it is not a number in the grammar above
     */
    public static double parse(byte[] block, int from, int to) {
        return parse((Object) block, from, to);
    }

    /** One parser for both sources: {@code text} is a {@code String} or a {@code byte[]} of ASCII. */
    private static double parse(Object text, int from, int to) {
        int i = from;
        boolean negative = false;
        if (i < to && (charAt(text, i) == '-' || charAt(text, i) == '+')) {
            negative = charAt(text, i) == '-';
            i++;
        }
        long mantissa = 0;
        int digits = 0;
        int significant = 0;
        int scale = 0;
        boolean exact = true;
        for (; i < to && isDigit(charAt(text, i)); i++) {
            digits++;
            if (significant < MAX_DIGITS) {
                mantissa = mantissa * 10 + (charAt(text, i) - '0');
                if (mantissa != 0) {
                    significant++;
                }
            } else {
                exact = false;
            }
        }
        if (i < to && charAt(text, i) == '.') {
            i++;
            int fraction = 0;
            for (; i < to && isDigit(charAt(text, i)); i++, fraction++) {
                if (significant < MAX_DIGITS) {
                    mantissa = mantissa * 10 + (charAt(text, i) - '0');
                    scale--;
                    if (mantissa != 0) {
                        significant++;
                    }
                } else {
                    exact = false;
                }
            }
            if (fraction == 0) {
                return Double.NaN;
            }
            digits += fraction;
        }
        if (digits == 0) {
            return Double.NaN;
        }
        if (i < to && (charAt(text, i) == 'e' || charAt(text, i) == 'E')) {
            i++;
            boolean negativeExponent = false;
            if (i < to && (charAt(text, i) == '-' || charAt(text, i) == '+')) {
                negativeExponent = charAt(text, i) == '-';
                i++;
            }
            int exponent = 0;
            int exponentDigits = 0;
            for (; i < to && isDigit(charAt(text, i)); i++, exponentDigits++) {
                exponent = Math.min(exponent * 10 + (charAt(text, i) - '0'), 100_000);
            }
            if (exponentDigits == 0) {
                return Double.NaN;
            }
            scale += negativeExponent ? -exponent : exponent;
        }
        if (i != to) {
            return Double.NaN;
        }
        if (mantissa == 0) {
            return negative ? -0.0 : 0.0;
        }
        if (exact && mantissa <= MAX_EXACT_MANTISSA && scale >= -22 && scale <= 22) {
            double value = scale < 0 ? mantissa / POWERS_OF_TEN[-scale] : mantissa * POWERS_OF_TEN[scale];
            return negative ? -value : value;
        }
        return parseSlowPath(text, from, to);
    }

    /** Too many digits or too large an exponent for the exact fast path; the text is known valid. */
    private static double parseSlowPath(Object text, int from, int to) {
        String number = text instanceof String string ? string.substring(from, to)
                : new String((byte[]) text, from, to - from, StandardCharsets.ISO_8859_1);
        return Double.parseDouble(number);
    }

    /** @return the char at {@code i} of a {@code String} or an ASCII {@code byte[]} */
    static char charAt(Object text, int i) {
        return text instanceof String string ? string.charAt(i) : (char) ((byte[]) text)[i];
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
