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

    /** The scope of a subject not split into tokens is the scope of its tokens, for every kind of pattern. */
    @Test
    void scopeOfAnUnsplitSubjectAgreesWithItsTokens() {
        ScopeTable table = new ScopeTable(Scope.PUBLIC)
                .with(SubjectPattern.parse("orders.>"), Scope.PRIVATE)
                .with(SubjectPattern.parse("ord.*"), Scope.ROOT)
                .with(SubjectPattern.parse("*.x.*"), Scope.FEDERATED)
                .with(SubjectPattern.parse("a"), Scope.FEDERATED)
                .with(SubjectPattern.parse("_INBOX.r.ROOT.>"), Scope.ROOT);
        for (String subject : new String[] {"orders", "orders.x", "ordersx.y", "ord.x", "ord.x.y", "or.x", "a", "ab",
                "a.b", "_INBOX.abc.1", "_INBOX.r.ROOT.7", "_INBOX.r.ROOT", "o", "q.x.z", "q.x", "q.x.z.w", "ord"}) {
            assertThat(table.scopeOf(subject)).as(subject).isEqualTo(table.scopeOf(tokens(subject)));
        }
        for (String pattern : new String[] {"a.b", "a.*", "a.>", "*", ">", "*.b", "a.*.c", "a"}) {
            SubjectPattern p = SubjectPattern.parse(pattern);
            for (String subject : new String[] {"a", "a.b", "a.b.c", "a.bc", "ab.b", "x.b", "a.x.c", "b"}) {
                assertThat(p.matches(subject)).as("%s ~ %s", pattern, subject).isEqualTo(p.matches(tokens(subject)));
            }
        }
    }

    /** Subjects published to once (reply inboxes) never enter the route cache: the hot routes stay. */
    @Test
    void subjectsSeenOnceDoNotFillTheRouteCache() {
        ConcurrentSubjectIndex index = new ConcurrentSubjectIndex(Scope.PUBLIC, 1, 100);
        Route hot = index.route("orders.hot");
        assertThat(index.route("orders.hot")).as("cached on its second lookup").isNotNull();
        Route cached = index.route("orders.hot");
        for (int i = 0; i < 10_000; i++) {
            index.route("_INBOX.abc." + i);
        }
        assertThat(index.cacheResets()).as("10,000 inboxes looked up once each").isZero();
        assertThat(index.route("orders.hot")).as("the hot route is still the cached one").isSameAs(cached);
        assertThat(hot).isNotNull();
        assertThat(index.scopeOfLiteral("_INBOX.abc.1", "replyTo")).isEqualTo(Scope.PUBLIC);
    }
}
