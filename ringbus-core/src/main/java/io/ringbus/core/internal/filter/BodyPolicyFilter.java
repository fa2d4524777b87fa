package io.ringbus.core.internal.filter;

import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;

import java.util.Map;

/**
 * A compiled filter policy over the JSON body: a {@code Map} payload is tested as it is, a
 * {@code byte[]} (UTF-8) or {@code CharSequence} payload is read as JSON first, keeping only the
 * policy's keys. Any other payload, or one that is not a JSON object, does not match.
 *
 * <p>Threading: immutable; {@link #test} is safe from any number of threads at once.
 */
final class BodyPolicyFilter implements MessageFilter {
    private final PolicyCondition root;
    private final BodyPaths paths;
    private final String text;

    BodyPolicyFilter(PolicyCondition root, BodyPaths paths, String text) {
        this.root = root;
        this.paths = paths;
        this.text = text;
    }

    @Override
    public boolean test(Message message) {
        Map<?, ?> body = JsonBodyReader.read(message.payload(), paths);
        return body != null && root.matchesBody(body);
    }

    @Override
    public String text() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BodyPolicyFilter filter && filter.text.equals(text);
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
