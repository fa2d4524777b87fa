package io.ringbus.core.internal.filter;

import io.ringbus.core.Headers;
import io.ringbus.core.wire.NatsHeaderLines;

import java.util.Map;

/**
 * A compiled filter policy or part of one: a key's condition, all of several ({@code AND} across
 * keys) or any of several ({@code $or}). A header policy is only ever asked about headers, a body
 * policy only about bodies.
 *
 * <p>Threading: immutable once compiled, safe to call from any number of threads.
 */
abstract class PolicyCondition {
    private final long combinations;

    PolicyCondition(long combinations) {
        this.combinations = combinations;
    }

    /** @return how many value combinations the policy stands for, as SNS counts them for its limit */
    final long combinations() {
        return combinations;
    }

    /**
     * @param headers    a message's headers
     * @param asciiBlock their NATS block when they came from one and it is all ASCII (then read in
     *                   place, see {@link NatsHeaderLines}), else {@code null} (then read through
     *                   {@link Headers#all})
     * @return whether they match; allocates nothing
     */
    abstract boolean matchesHeaders(Headers headers, byte[] asciiBlock);

    /**
     * @param body a JSON object as maps, lists and scalars
     * @return whether it matches
     */
    abstract boolean matchesBody(Map<?, ?> body);
}
