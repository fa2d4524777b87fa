package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;

import java.util.Map;

/** A {@code $or}: at least one of the policies must match. Immutable. */
final class AnyOf extends PolicyCondition {
    private final PolicyCondition[] choices;

    AnyOf(PolicyCondition[] choices) {
        super(sum(choices));
        this.choices = choices;
    }

    private static long sum(PolicyCondition[] choices) {
        long sum = 0;
        for (PolicyCondition choice : choices) {
            sum = Math.min(sum + choice.combinations(), Integer.MAX_VALUE);
        }
        return sum;
    }

    @Override
    boolean matchesHeaders(Headers headers, byte[] asciiBlock) {
        for (PolicyCondition choice : choices) {
            if (choice.matchesHeaders(headers, asciiBlock)) {
                return true;
            }
        }
        return false;
    }

    @Override
    boolean matchesBody(Map<?, ?> body) {
        for (PolicyCondition choice : choices) {
            if (choice.matchesBody(body)) {
                return true;
            }
        }
        return false;
    }
}
