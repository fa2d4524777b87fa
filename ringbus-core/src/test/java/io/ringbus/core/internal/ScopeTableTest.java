package io.ringbus.core.internal;

import io.ringbus.core.Scope;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The scope table: most specific registered pattern wins, else the default; immutable. */
class ScopeTableTest {

    private static String[] tokens(String subject) {
        return SubjectPattern.literalTokens(subject, "subject");
    }

    @Test
    void emptyTableGivesTheDefault() {
        assertThat(new ScopeTable(Scope.FEDERATED).scopeOf(tokens("a.b"))).isEqualTo(Scope.FEDERATED);
    }

    @Test
    void mostSpecificMatchWinsWhateverTheRegistrationOrder() {
        ScopeTable forward = new ScopeTable(Scope.PRIVATE)
                .with(SubjectPattern.parse(">"), Scope.PUBLIC)
                .with(SubjectPattern.parse("a.>"), Scope.FEDERATED)
                .with(SubjectPattern.parse("a.*"), Scope.ROOT)
                .with(SubjectPattern.parse("a.b"), Scope.PUBLIC);
        ScopeTable backward = new ScopeTable(Scope.PRIVATE)
                .with(SubjectPattern.parse("a.b"), Scope.PUBLIC)
                .with(SubjectPattern.parse("a.*"), Scope.ROOT)
                .with(SubjectPattern.parse("a.>"), Scope.FEDERATED)
                .with(SubjectPattern.parse(">"), Scope.PUBLIC);
        for (ScopeTable table : new ScopeTable[] {forward, backward}) {
            assertThat(table.scopeOf(tokens("a.b"))).isEqualTo(Scope.PUBLIC);
            assertThat(table.scopeOf(tokens("a.c"))).isEqualTo(Scope.ROOT);
            assertThat(table.scopeOf(tokens("a.c.d"))).isEqualTo(Scope.FEDERATED);
            assertThat(table.scopeOf(tokens("z"))).isEqualTo(Scope.PUBLIC);
        }
    }

    @Test
    void withReturnsANewTableAndReplacesAnEqualPattern() {
        ScopeTable empty = new ScopeTable(Scope.PRIVATE);
        ScopeTable once = empty.with(SubjectPattern.parse("a.>"), Scope.PUBLIC);
        ScopeTable twice = once.with(SubjectPattern.parse("a.>"), Scope.ROOT);
        assertThat(empty.scopeOf(tokens("a.b"))).isEqualTo(Scope.PRIVATE);
        assertThat(once.scopeOf(tokens("a.b"))).isEqualTo(Scope.PUBLIC);
        assertThat(twice.scopeOf(tokens("a.b"))).isEqualTo(Scope.ROOT);
    }
}
