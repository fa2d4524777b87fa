package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.wire.NatsHeaderLines;

/**
 * A compiled filter policy over message headers. {@link #test} allocates nothing: headers that
 * arrived as an ASCII NATS block are read in place ({@link NatsHeaderLines}), without the map
 * {@code Headers} would parse from the block on first use; others through {@code Headers.all}.
 *
 * <p>Threading: immutable; {@link #test} is safe from any number of threads at once.
 */
final class HeaderPolicyFilter extends PolicyFilter {

    HeaderPolicyFilter(PolicyCondition root, String text) {
        super(root, text);
    }

    @Override
    public boolean test(Message message) {
        Headers headers = message.headers();
        byte[] block = headers.natsBlock();
        return root.matchesHeaders(headers, block != null && NatsHeaderLines.isAscii(block) ? block : null);
    }
}
