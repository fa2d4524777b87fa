package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;

/**
 * A compiled filter policy over message headers. {@link #test} allocates nothing: headers that
 * arrived as an ASCII NATS block are read in place ({@link NatsHeaderLines}), without the map
 * {@code Headers} would parse from the block on first use; others through {@code Headers.all}.
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
        Headers headers = message.headers();
        byte[] block = headers.natsBlock();
        return root.matchesHeaders(headers, block != null && NatsHeaderLines.isAscii(block) ? block : null);
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
