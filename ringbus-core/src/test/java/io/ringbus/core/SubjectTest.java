package io.ringbus.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

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
}
