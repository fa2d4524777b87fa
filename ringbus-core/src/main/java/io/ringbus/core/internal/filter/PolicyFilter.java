package io.ringbus.core.internal.filter;

import io.ringbus.core.MessageFilter;

/**
 * A compiled filter policy: its condition tree and its normalized spec ({@link #text()}), which
 * also decides equality (a body policy's spec starts {@code body }, so scopes never compare equal).
 *
 * <p>Threading: immutable; {@code test} is safe from any number of threads at once.
 */
abstract sealed class PolicyFilter implements MessageFilter permits HeaderPolicyFilter, BodyPolicyFilter {
    final PolicyCondition root;
    private final String text;

    PolicyFilter(PolicyCondition root, String text) {
        this.root = root;
        this.text = text;
    }

    @Override
    public final String text() {
        return text;
    }

    @Override
    public final boolean equals(Object other) {
        return other instanceof PolicyFilter filter && filter.text.equals(text);
    }

    @Override
    public final int hashCode() {
        return text.hashCode();
    }

    @Override
    public final String toString() {
        return text;
    }
}
