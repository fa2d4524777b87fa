package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;

import java.util.Map;

/** The keys of one policy object: every part must match (SNS's AND across keys). Immutable. */
final class AllOf extends PolicyCondition {
    private final PolicyCondition[] parts;

    AllOf(PolicyCondition[] parts) {
        super(product(parts));
        this.parts = parts;
    }

    private static long product(PolicyCondition[] parts) {
        long product = 1;
        for (PolicyCondition part : parts) {
            product = Math.min(product * part.combinations(), Integer.MAX_VALUE);
        }
        return product;
    }

    PolicyCondition[] parts() {
        return parts;
    }

    @Override
    boolean matchesHeaders(Headers headers, byte[] asciiBlock) {
        for (PolicyCondition part : parts) {
            if (!part.matchesHeaders(headers, asciiBlock)) {
                return false;
            }
        }
        return true;
    }

    @Override
    boolean matchesBody(Map<?, ?> body) {
        for (PolicyCondition part : parts) {
            if (!part.matchesBody(body)) {
                return false;
            }
        }
        return true;
    }
}
