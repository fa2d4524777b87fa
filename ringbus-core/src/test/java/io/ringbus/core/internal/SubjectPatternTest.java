package io.ringbus.core.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** The subject grammar, matching and specificity order, checked directly. */
class SubjectPatternTest {

    @Test
    void parsesTokensAndTellsWildcards() {
        SubjectPattern pattern = SubjectPattern.parse("a.*.>");
        assertThat(pattern.text()).isEqualTo("a.*.>");
        assertThat(pattern.size()).isEqualTo(3);
        assertThat(pattern.token(0)).isEqualTo("a");
        assertThat(pattern.token(1)).isEqualTo("*");
        assertThat(pattern.token(2)).isEqualTo(">");
        assertThat(pattern.isWildcard()).isTrue();
        assertThat(SubjectPattern.parse("a.b*.c>").isWildcard()).as("partial-token wildcards are literals").isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"a..b", ".a", "a.", ".", "a b", "a\tb", "a.>.b", ">.>"})
    void malformedPatternsAreRejectedNamingThem(String pattern) {
        assertThatThrownBy(() -> SubjectPattern.parse(pattern)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(pattern);
    }

    @Test
    void nullAndEmptyAreRejected() {
        assertThatThrownBy(() -> SubjectPattern.parse(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SubjectPattern.parse("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SubjectPattern.literalTokens(null, "subject"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("subject");
    }

    @ParameterizedTest
    @ValueSource(strings = {"*", ">", "a.*", "a.>", "*.b"})
    void literalTokensRejectWildcardsNamingTheSubject(String subject) {
        assertThatThrownBy(() -> SubjectPattern.literalTokens(subject, "replyTo"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(subject)
                .hasMessageContaining("replyTo");
    }

    @Test
    void literalTokensSplitOnDots() {
        assertThat(SubjectPattern.literalTokens("a.b*.c", "subject")).containsExactly("a", "b*", "c");
    }

    static Stream<Arguments> ordered() {
        // Each pair: the first is strictly more specific than the second.
        return Stream.of(
                arguments("a.b", "a.*"),
                arguments("a.*", "a.>"),
                arguments("a.b", "a.>"),
                arguments("a.>", "*.b"),
                arguments("a.>", ">"),
                arguments("a.*.>", "a.>"),
                arguments("a.b.>", "a.*.c"),
                arguments("a.*.*", "a.*.>"),
                arguments("a.b.c", "a.b"));
    }

    @ParameterizedTest(name = "{0} beats {1}")
    @MethodSource("ordered")
    void specificityComparesTokenByToken(String moreSpecific, String lessSpecific) {
        SubjectPattern a = SubjectPattern.parse(moreSpecific);
        SubjectPattern b = SubjectPattern.parse(lessSpecific);
        assertThat(a.compareSpecificity(b)).isPositive();
        assertThat(b.compareSpecificity(a)).isNegative();
        assertThat(a.compareSpecificity(SubjectPattern.parse(moreSpecific))).isZero();
    }

    @Test
    void matchesAgreesWithAnIndependentMatcherOnRandomInput() {
        Random random = new Random(7);
        String[] alphabet = {"a", "b", "c"};
        List<String> failures = new ArrayList<>();
        for (int n = 0; n < 20_000 && failures.size() < 10; n++) {
            String pattern = randomPattern(random, alphabet);
            String subject = randomSubject(random, alphabet);
            boolean expected = matchesReference(pattern.split("\\."), subject.split("\\."));
            boolean actual = SubjectPattern.parse(pattern).matches(SubjectPattern.literalTokens(subject, "subject"));
            if (expected != actual) {
                failures.add(pattern + " vs " + subject + ": expected " + expected);
            }
        }
        assertThat(failures).isEmpty();
    }

    private static String randomPattern(Random random, String[] alphabet) {
        int length = 1 + random.nextInt(4);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            if (i > 0) {
                text.append('.');
            }
            int pick = random.nextInt(alphabet.length + 2);
            if (pick == alphabet.length + 1 && i == length - 1) {
                text.append('>');
            } else if (pick >= alphabet.length) {
                text.append('*');
            } else {
                text.append(alphabet[pick]);
            }
        }
        return text.toString();
    }

    private static String randomSubject(Random random, String[] alphabet) {
        int length = 1 + random.nextInt(5);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            if (i > 0) {
                text.append('.');
            }
            text.append(alphabet[random.nextInt(alphabet.length)]);
        }
        return text.toString();
    }

    /** Recursive NATS matching, written independently. */
    private static boolean matchesReference(String[] pattern, String[] subject) {
        return matchesFrom(pattern, 0, subject, 0);
    }

    private static boolean matchesFrom(String[] pattern, int p, String[] subject, int s) {
        if (p == pattern.length) {
            return s == subject.length;
        }
        if (pattern[p].equals(">")) {
            return s < subject.length;
        }
        if (s == subject.length) {
            return false;
        }
        return (pattern[p].equals("*") || pattern[p].equals(subject[s])) && matchesFrom(pattern, p + 1, subject, s + 1);
    }
}
