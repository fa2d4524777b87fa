package io.ringbus.core;

import io.ringbus.core.internal.SubjectPattern;

import java.util.function.Predicate;

/**
 * The subject grammar of ringbus (that of NATS), for code that stores or routes subjects outside
 * a broker: the outbox checks subjects when a row is appended, long before it is published.
 *
 * <pre>
 * subject  = token *( "." token )   ; tokens are non-empty, without '.', whitespace or DEL
 * pattern  = subject whose tokens may be "*" (one token); the last may be "&gt;" (one or more)
 * </pre>
 *
 * <p>Threading: static methods without state; safe from any thread.
 */
public final class Subject {
    private Subject() {
    }

    /**
     * Checks a subject to publish to.
     *
     * @param subject the subject
     * @return {@code subject}
     * @throws IllegalArgumentException naming the subject when it is null, malformed or has a wildcard
     */
    public static String requireLiteral(String subject) {
        SubjectPattern.literalTokens(subject, "subject");
        return subject;
    }

    /**
     * Checks a subscription pattern.
     *
     * @param pattern the pattern
     * @return {@code pattern}
     * @throws IllegalArgumentException naming the pattern when it is null or malformed
     */
    public static String requirePattern(String pattern) {
        SubjectPattern.parse(pattern);
        return pattern;
    }

    /**
     * Whether some subject matches both patterns (JetStream's "subjects collide", which refuses
     * streams that overlap).
     *
     * @param a a subject or pattern
     * @param b a subject or pattern
     * @return whether they overlap
     * @throws IllegalArgumentException when either is malformed
     */
    public static boolean overlap(String a, String b) {
        return SubjectPattern.overlap(SubjectPattern.parse(a), SubjectPattern.parse(b));
    }

    /**
     * Finds the first two patterns of a list that {@link #overlap}, in the order of a check of every
     * pair {@code i < j} (the smallest {@code i} that overlaps another, then its first partner).
     * Two distinct literal subjects never overlap, so only pairs with a wildcard are compared, each
     * pattern parsed once: O(patterns × wildcards), not O(patterns²).
     *
     * @param patterns distinct subjects or patterns
     * @return {@code {i, j}} with {@code i < j}, or {@code null} when no two overlap
     * @throws IllegalArgumentException when one is malformed
     */
    public static int[] firstOverlap(java.util.List<String> patterns) {
        int n = patterns.size();
        SubjectPattern[] parsed = new SubjectPattern[n];
        int[] wildcards = new int[n];
        int w = 0;
        for (int i = 0; i < n; i++) {
            parsed[i] = SubjectPattern.parse(patterns.get(i));
            if (parsed[i].isWildcard()) {
                wildcards[w++] = i;
            }
        }
        for (int i = 0; i < n && w > 0; i++) {
            if (parsed[i].isWildcard()) {
                for (int j = i + 1; j < n; j++) {
                    if (SubjectPattern.overlap(parsed[i], parsed[j])) {
                        return new int[] {i, j};
                    }
                }
            } else {
                for (int k = 0; k < w; k++) {
                    int j = wildcards[k];
                    if (j > i && SubjectPattern.overlap(parsed[i], parsed[j])) {
                        return new int[] {i, j};
                    }
                }
            }
        }
        return null;
    }

    /**
     * Tells whether a pattern matches a literal subject. Both are checked first.
     *
     * @param pattern a subscription pattern
     * @param subject a literal subject
     * @return whether {@code pattern} matches {@code subject}
     * @throws IllegalArgumentException naming the bad pattern or subject
     */
    public static boolean matches(String pattern, String subject) {
        return SubjectPattern.parse(pattern).matches(SubjectPattern.literalTokens(subject, "subject"));
    }

    /**
     * Parses a pattern once for many tests, as {@link #matches} would make them, of subjects already
     * known to be valid literals (a stream's stored subjects): they are not checked again, and a
     * test allocates nothing.
     *
     * @param pattern a subscription pattern
     * @return a test of valid literal subjects; thread-safe
     * @throws IllegalArgumentException naming the bad pattern
     */
    public static Predicate<String> matcher(String pattern) {
        SubjectPattern parsed = SubjectPattern.parse(pattern);
        return parsed::matches;
    }

    /**
     * Tells whether a pattern matches a subject taken as received, as {@link Client#verbatim()}
     * takes it from a protocol client that is not pedantic: the subject is split on every '.',
     * empty and wildcard tokens are kept and matched literally ({@code a.*} matches {@code a.*},
     * {@code a.>} matches {@code a..b}). The same matcher as {@link #matches}; only the pattern is
     * checked.
     *
     * @param pattern a subscription pattern
     * @param subject a non-empty subject, as received
     * @return whether {@code pattern} matches {@code subject}
     * @throws IllegalArgumentException naming the bad pattern, or when the subject is null or empty
     */
    public static boolean matchesVerbatim(String pattern, String subject) {
        return SubjectPattern.parse(pattern).matches(SubjectPattern.verbatimTokens(subject));
    }
}
