package io.ringbus.core.internal.filter;

import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;

import java.util.Map;

/**
 * The body policies of one route's subscribers, read together: a message's JSON body is read
 * once, keeping what any of the policies reads (the union of their paths), and every policy is
 * then tested on that one reading instead of reading the body again. A policy only looks up its
 * own keys, so keys another policy asked for change nothing (an object the union reads into is
 * still an object where a policy asked for a leaf).
 *
 * <p>Threading: immutable; each publish makes its own {@link Reading}, used by one thread.
 */
public final class SharedBody {
    private final BodyPaths paths;

    private SharedBody(BodyPaths paths) {
        this.paths = paths;
    }

    /**
     * @param filters distinct filters of one route (any kinds)
     * @return the shared reading of their body policies, or {@code null} when fewer than two are
     *         body policies (nothing to share)
     */
    public static SharedBody of(Iterable<MessageFilter> filters) {
        BodyPaths union = new BodyPaths();
        int bodies = 0;
        for (MessageFilter filter : filters) {
            if (filter instanceof BodyPolicyFilter body) {
                union.addAll(body.paths());
                bodies++;
            }
        }
        return bodies < 2 ? null : new SharedBody(union);
    }

    /**
     * Whether two filters decide alike on every message, so that one's answer serves the other:
     * equal policies (their normalized text), or the same filter object.
     *
     * @param a a filter
     * @param b another
     * @return whether {@code b}'s answer is {@code a}'s
     */
    public static boolean alike(MessageFilter a, MessageFilter b) {
        return a == b || isPolicy(a) && a.equals(b);
    }

    /**
     * @param filter a filter
     * @return whether it is a compiled policy, whose {@code equals} and {@code hashCode} are its
     *         normalized text: equal policies decide alike
     */
    public static boolean isPolicy(MessageFilter filter) {
        return filter instanceof PolicyFilter;
    }

    /** @return a reading for one message; nothing is read until a body policy asks */
    public Reading reading() {
        return new Reading(paths);
    }

    /** One message's body, read on first use for every body policy of the route. Not thread-safe. */
    public static final class Reading {
        private final BodyPaths paths;
        private boolean read;
        private Map<?, ?> body;

        private Reading(BodyPaths paths) {
            this.paths = paths;
        }

        /**
         * @param filter  a filter of the route
         * @param message the message being routed (always the same one for this reading)
         * @return what {@code filter.test(message)} returns, reading a JSON body at most once
         */
        public boolean test(MessageFilter filter, Message message) {
            if (!(filter instanceof BodyPolicyFilter policy)) {
                return filter.test(message);
            }
            if (!read) {
                body = JsonBodyReader.read(message.payload(), paths);
                read = true;
            }
            return body != null && policy.root.matchesBody(body);
        }
    }
}
