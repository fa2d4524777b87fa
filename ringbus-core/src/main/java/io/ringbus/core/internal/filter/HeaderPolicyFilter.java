package io.ringbus.core.internal.filter;

import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;

/**
 * A compiled filter policy over message headers. {@link #test} allocates nothing (headers that
 * arrived as a NATS block are parsed into their map once per message, on first use by anyone).
 *
 * <p>Threading: immutable; {@link #test} is safe from any number of threads at once.
 */
final class HeaderPolicyFilter implements MessageFilter {
    private final PolicyCondition root;
    private final String text;

    HeaderPolicyFilter(PolicyCondition root, String text) {
        this.root = root;
        this.text = text;
    }

    @Override
    public boolean test(Message message) {
        return root.matchesHeaders(message.headers());
    }

    @Override
    public String text() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HeaderPolicyFilter filter && filter.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
