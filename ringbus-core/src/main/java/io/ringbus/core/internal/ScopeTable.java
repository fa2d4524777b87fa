package io.ringbus.core.internal;

import io.ringbus.core.Scope;

import java.util.Arrays;

/**
 * Immutable table of registered subject patterns and their scopes. A subject takes the scope of
 * the most specific pattern it matches ({@link SubjectPattern#compareSpecificity}), else the
 * default. Lookups scan the table; callers cache the result per subject.
 */
final class ScopeTable {
    private final Scope defaultScope;
    private final SubjectPattern[] patterns;
    private final Scope[] scopes;

    ScopeTable(Scope defaultScope) {
        this(defaultScope, new SubjectPattern[0], new Scope[0]);
    }

    private ScopeTable(Scope defaultScope, SubjectPattern[] patterns, Scope[] scopes) {
        this.defaultScope = defaultScope;
        this.patterns = patterns;
        this.scopes = scopes;
    }

    /** @return a table with {@code pattern} set to {@code scope}, replacing an earlier entry */
    ScopeTable with(SubjectPattern pattern, Scope scope) {
        for (int i = 0; i < patterns.length; i++) {
            if (patterns[i].equals(pattern)) {
                Scope[] newScopes = scopes.clone();
                newScopes[i] = scope;
                return new ScopeTable(defaultScope, patterns, newScopes);
            }
        }
        SubjectPattern[] newPatterns = Arrays.copyOf(patterns, patterns.length + 1);
        Scope[] newScopes = Arrays.copyOf(scopes, scopes.length + 1);
        newPatterns[patterns.length] = pattern;
        newScopes[scopes.length] = scope;
        return new ScopeTable(defaultScope, newPatterns, newScopes);
    }

    /**
     * @param subject a valid literal subject ({@link SubjectPattern#isLiteral}), not split
     * @return its scope, as {@link #scopeOf(String[])} gives it, without allocating
     */
    Scope scopeOf(String subject) {
        return scopeOf(subject, null);
    }

    /** @return the scope of a literal subject, given as tokens */
    Scope scopeOf(String[] subject) {
        return scopeOf(null, subject);
    }

    /** The most specific pattern matching the subject, given as a string or else as tokens. */
    private Scope scopeOf(String subject, String[] tokens) {
        SubjectPattern best = null;
        Scope scope = defaultScope;
        for (int i = 0; i < patterns.length; i++) {
            SubjectPattern candidate = patterns[i];
            boolean matches = tokens == null ? candidate.matches(subject) : candidate.matches(tokens);
            if (matches && (best == null || candidate.compareSpecificity(best) > 0)) {
                best = candidate;
                scope = scopes[i];
            }
        }
        return scope;
    }

    /**
     * @return the highest scope any subject {@code pattern} matches can have: the default and the
     *         scope of every registered pattern that some subject of {@code pattern} also matches
     *         (an upper bound: a more specific pattern may lower some of those subjects)
     */
    Scope maxScopeOf(SubjectPattern pattern) {
        Scope max = defaultScope;
        for (int i = 0; i < patterns.length; i++) {
            if (scopes[i].ordinal() > max.ordinal() && DurableSubjects.overlap(patterns[i], pattern)) {
                max = scopes[i];
            }
        }
        return max;
    }
}
