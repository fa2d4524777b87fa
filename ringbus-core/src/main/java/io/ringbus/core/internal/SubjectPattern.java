package io.ringbus.core.internal;

import java.util.Arrays;

/**
 * A parsed subject or subscription pattern, and the subject grammar of ringbus (that of NATS).
 *
 * <pre>
 * subject  = token *( "." token )        ; at least one token
 * token    = 1*( any char but "." and whitespace (' ', TAB, CR, LF, any char &lt;= ' ', DEL) )
 * pattern  = subject in which a token may be "*" (exactly one token), and the last token may be
 *            "&gt;" (one or more trailing tokens)
 * </pre>
 * Wildcards are whole tokens only: {@code a*} is a literal token. Subjects are case-sensitive.
 * Published subjects must be literal (no {@code *} or {@code >} token).
 */
public final class SubjectPattern {
    /** The single-token wildcard. */
    public static final String STAR = "*";
    /** The trailing, one-or-more-tokens wildcard. */
    public static final String GREATER = ">";

    private final String text;
    private final String[] tokens;
    private final boolean wildcard;

    private SubjectPattern(String text, String[] tokens, boolean wildcard) {
        this.text = text;
        this.tokens = tokens;
        this.wildcard = wildcard;
    }

    /**
     * Parses a subscription pattern.
     *
     * @param pattern the pattern
     * @return the parsed pattern
     * @throws IllegalArgumentException naming the pattern when it is null or malformed
     */
    public static SubjectPattern parse(String pattern) {
        String[] tokens = tokenize(pattern, "pattern");
        boolean wildcard = false;
        for (int i = 0; i < tokens.length; i++) {
            String token = tokens[i];
            if (token.equals(GREATER)) {
                if (i != tokens.length - 1) {
                    throw new IllegalArgumentException("'>' may only be the last token of a pattern: pattern='"
                            + pattern + "'");
                }
                wildcard = true;
            } else if (token.equals(STAR)) {
                wildcard = true;
            }
        }
        return new SubjectPattern(pattern, tokens, wildcard);
    }

    /**
     * Splits a subject to publish to, checking that it is well formed and literal.
     *
     * @param subject the subject
     * @param what    what the subject is, for the message ("subject", "replyTo")
     * @return its tokens
     * @throws IllegalArgumentException naming the subject when it is null, malformed or has a wildcard
     */
    public static String[] literalTokens(String subject, String what) {
        String[] tokens = tokenize(subject, what);
        for (String token : tokens) {
            if (token.equals(STAR) || token.equals(GREATER)) {
                throw new IllegalArgumentException("wildcards are not allowed in a " + what + " to publish to: "
                        + what + "='" + subject + "'");
            }
        }
        return tokens;
    }

    /**
     * @param subject any string
     * @return whether it is a valid subject to publish to (non-empty tokens, no wildcard, no whitespace)
     */
    public static boolean isLiteral(String subject) {
        if (subject == null || subject.isEmpty()) {
            return false;
        }
        int length = subject.length();
        int tokenStart = 0;
        for (int i = 0; i <= length; i++) {
            char c = i == length ? '.' : subject.charAt(i);
            if (c == '.') {
                int tokenLength = i - tokenStart;
                if (tokenLength == 0 || (tokenLength == 1
                        && (subject.charAt(tokenStart) == '*' || subject.charAt(tokenStart) == '>'))) {
                    return false;
                }
                tokenStart = i + 1;
            } else if (c <= ' ' || c == 127) {
                return false;
            }
        }
        return true;
    }

    /**
     * Splits a subject as received from a client that is not pedantic, as nats-server does: on
     * every '.', keeping empty tokens; a {@code *} or {@code >} token stays a token.
     *
     * @param subject a non-empty subject
     * @return its tokens
     * @throws IllegalArgumentException when the subject is null or empty
     */
    public static String[] verbatimTokens(String subject) {
        if (subject == null || subject.isEmpty()) {
            throw new IllegalArgumentException("subject must not be empty: subject='" + subject + "'");
        }
        int count = 1;
        for (int i = 0; i < subject.length(); i++) {
            if (subject.charAt(i) == '.') {
                count++;
            }
        }
        String[] tokens = new String[count];
        int start = 0;
        int index = 0;
        for (int i = 0; i <= subject.length(); i++) {
            if (i == subject.length() || subject.charAt(i) == '.') {
                tokens[index++] = subject.substring(start, i);
                start = i + 1;
            }
        }
        return tokens;
    }

    private static String[] tokenize(String text, String what) {
        if (text == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        int length = text.length();
        if (length == 0) {
            throw new IllegalArgumentException(what + " must not be empty: " + what + "=''");
        }
        int count = 1;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c == '.') {
                count++;
            } else if (c <= ' ' || c == 127) {
                throw new IllegalArgumentException(what + " must not contain whitespace or control characters: "
                        + what + "='" + text + "'");
            }
        }
        String[] tokens = new String[count];
        int start = 0;
        int index = 0;
        for (int i = 0; i <= length; i++) {
            if (i == length || text.charAt(i) == '.') {
                if (i == start) {
                    throw new IllegalArgumentException(what + " has an empty token: " + what + "='" + text + "'");
                }
                tokens[index++] = text.substring(start, i);
                start = i + 1;
            }
        }
        return tokens;
    }

    /** @return the pattern as written */
    public String text() {
        return text;
    }

    /** @return the number of tokens */
    public int size() {
        return tokens.length;
    }

    /**
     * @param index a token index
     * @return the token at {@code index}
     */
    public String token(int index) {
        return tokens[index];
    }

    /** @return the tokens; the caller must not modify the array */
    String[] tokens() {
        return tokens;
    }

    /** @return whether the pattern has a {@code *} or {@code >} token */
    public boolean isWildcard() {
        return wildcard;
    }

    /**
     * As {@link #matches(String[])} on a subject not split into tokens (no allocation).
     *
     * @param subject a valid literal subject ({@link #isLiteral})
     * @return whether this pattern matches it
     */
    public boolean matches(String subject) {
        int at = 0;
        int length = subject.length();
        for (String token : tokens) {
            if (at > length) {
                return false; // the subject has fewer tokens than the pattern
            }
            if (token.equals(GREATER)) {
                return at < length;
            }
            int end = subject.indexOf('.', at);
            if (end < 0) {
                end = length;
            }
            if (!token.equals(STAR) && (end - at != token.length() || !subject.startsWith(token, at))) {
                return false;
            }
            at = end + 1;
        }
        return at > length;
    }

    /**
     * @param subject the tokens of a literal subject
     * @return whether this pattern matches it
     */
    public boolean matches(String[] subject) {
        int n = tokens.length;
        for (int i = 0; i < n; i++) {
            String token = tokens[i];
            if (token.equals(GREATER)) {
                return subject.length > i;
            }
            if (i >= subject.length) {
                return false;
            }
            if (!token.equals(STAR) && !token.equals(subject[i])) {
                return false;
            }
        }
        return subject.length == n;
    }

    /**
     * Orders two patterns by specificity: compared token by token, a literal beats {@code *},
     * which beats {@code >}; when one is a prefix of the other, the longer one wins.
     *
     * @param other another pattern
     * @return &gt; 0 when this pattern is more specific, &lt; 0 when less, 0 when equally
     */
    public int compareSpecificity(SubjectPattern other) {
        int n = Math.min(tokens.length, other.tokens.length);
        for (int i = 0; i < n; i++) {
            int diff = rank(tokens[i]) - rank(other.tokens[i]);
            if (diff != 0) {
                return diff;
            }
        }
        return Integer.compare(tokens.length, other.tokens.length);
    }

    private static int rank(String token) {
        if (token.equals(GREATER)) {
            return 0;
        }
        return token.equals(STAR) ? 1 : 2;
    }

    /** @return whether some subject matches both patterns */
    public static boolean overlap(SubjectPattern a, SubjectPattern b) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            String x = a.token(i);
            String y = b.token(i);
            if (x.equals(SubjectPattern.GREATER) || y.equals(SubjectPattern.GREATER)) {
                return true;
            }
            if (!x.equals(y) && !x.equals(SubjectPattern.STAR) && !y.equals(SubjectPattern.STAR)) {
                return false;
            }
        }
        return a.size() == b.size();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SubjectPattern p && p.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text + Arrays.toString(tokens);
    }
}
