package io.ringbus.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;

class SubjectTest {
    @Test
    void acceptsLiteralSubjectsAndRejectsWildcardsNamingTheValue() {
        assertThat(Subject.requireLiteral("orders.created")).isEqualTo("orders.created");
        assertThatThrownBy(() -> Subject.requireLiteral("orders.*"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders.*");
        assertThatThrownBy(() -> Subject.requireLiteral("orders..created"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders..created");
        assertThatThrownBy(() -> Subject.requireLiteral("a b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a b");
    }

    @Test
    void matchesWildcardsAsTheBrokerDoes() {
        assertThat(Subject.matches("orders.>", "orders.eu.created")).isTrue();
        assertThat(Subject.matches("orders.*", "orders.eu.created")).isFalse();
        assertThat(Subject.matches("*.created", "orders.created")).isTrue();
        assertThat(Subject.matches(">", "x")).isTrue();
        assertThatThrownBy(() -> Subject.requirePattern("a.>.b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a.>.b");
    }

    @Test
    void matchesVerbatimSubjectsTokenByTokenKeepingEmptyAndWildcardTokens() {
        assertThat(Subject.matchesVerbatim("orders.>", "orders.eu.created")).isTrue();
        assertThat(Subject.matchesVerbatim("orders.>", "orders")).isFalse();
        assertThat(Subject.matchesVerbatim("orders.*", "orders.eu.created")).isFalse();
        assertThat(Subject.matchesVerbatim("_INBOX.*", "_INBOX.r1")).isTrue();
        assertThat(Subject.matchesVerbatim("_INBOX.r1", "_INBOX.r2")).isFalse();
        // As received from a client that is not pedantic: empty and wildcard tokens are tokens.
        assertThat(Subject.matchesVerbatim("a.>", "a..b")).isTrue();
        assertThat(Subject.matchesVerbatim("a.*.b", "a..b")).isTrue();
        assertThat(Subject.matchesVerbatim("a.b", "a..b")).isFalse();
        assertThat(Subject.matchesVerbatim("a.*", "a.*")).isTrue();
        assertThat(Subject.matchesVerbatim("a.b", "a.*")).isFalse();
        assertThatThrownBy(() -> Subject.matchesVerbatim("a..b", "a.x.b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a..b");
        assertThatThrownBy(() -> Subject.matchesVerbatim("a", ""))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * {@link Subject#firstOverlap} compares only pairs with a wildcard (a stream may list thousands of
     * literal subjects: the check of every pair held JetStream's API thread for minutes) and must
     * find the pair that checking every pair i &lt; j finds first.
     */
    @Test
    void firstOverlapFindsThePairThatCheckingEveryPairFindsFirst() {
        String[] tokens = {"a", "b", "c", "*", ">"};
        Random random = new Random(26);
        for (int round = 0; round < 2_000; round++) {
            LinkedHashSet<String> distinct = new LinkedHashSet<>();
            int size = 1 + random.nextInt(12);
            while (distinct.size() < size) {
                StringBuilder subject = new StringBuilder();
                int depth = 1 + random.nextInt(3);
                for (int t = 0; t < depth; t++) {
                    String token = tokens[random.nextInt(round % 3 == 0 ? 3 : tokens.length)];
                    if (token.equals(">") && t < depth - 1) {
                        token = "*";
                    }
                    subject.append(t == 0 ? "" : ".").append(token);
                }
                distinct.add(subject.toString());
            }
            List<String> patterns = new ArrayList<>(distinct);
            int[] expected = null;
            for (int i = 0; i < patterns.size() && expected == null; i++) {
                for (int j = i + 1; j < patterns.size() && expected == null; j++) {
                    if (Subject.overlap(patterns.get(i), patterns.get(j))) {
                        expected = new int[] {i, j};
                    }
                }
            }
            assertThat(Subject.firstOverlap(patterns)).as("%s", patterns).isEqualTo(expected);
        }
        assertThat(Subject.firstOverlap(List.of("x.1", "x.2", "x.3"))).isNull();
    }
}
