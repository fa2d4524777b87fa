package io.ringbus.core.internal.filter;

import io.ringbus.core.Message;

import java.util.Map;

/**
 * A compiled filter policy over the JSON body: a {@code Map} payload is tested as it is, a
 * {@code byte[]} (UTF-8) or {@code CharSequence} payload is read as JSON first, keeping only the
 * policy's keys. Any other payload, or one that is not a JSON object, does not match.
 *
 * <p>Threading: immutable; {@link #test} is safe from any number of threads at once.
 */
final class BodyPolicyFilter extends PolicyFilter {
    private final BodyPaths paths;

    BodyPolicyFilter(PolicyCondition root, BodyPaths paths, String text) {
        super(root, text);
        this.paths = paths;
    }

    /** @return the keys the policy reads */
    BodyPaths paths() {
        return paths;
    }

    @Override
    public boolean test(Message message) {
        Map<?, ?> body = JsonBodyReader.read(message.payload(), paths);
        return body != null && root.matchesBody(body);
    }
}
