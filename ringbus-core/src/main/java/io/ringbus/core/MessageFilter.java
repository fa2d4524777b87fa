package io.ringbus.core;

import io.ringbus.core.internal.filter.FilterPolicyCompiler;
import io.ringbus.core.internal.filter.PredicateFilter;

import java.util.function.Predicate;

/**
 * Decides whether a message routed to a subscription is delivered to it: evaluated at most once
 * per message per subscription, before the message takes a place in the subscriber's buffer; a
 * message it rejects is not delivered to that subscription. Publishing-thread subscriptions whose
 * filters are alike (equal policies, or the same filter) share one evaluation per message, so a
 * filter must be a pure function of the message.
 *
 * <p>The grammar is SNS's filter policy (JSON), over the headers ({@link #headers}) or over a JSON
 * body ({@link #body}); it is compiled once, here, and a bad policy fails with an
 * {@link IllegalArgumentException} naming the bad part with its JSON path. docs/routing.md
 * documents every operator and the limits. In-process code may use any {@link Predicate}
 * instead ({@link #of}).
 *
 * <p>Threading: {@link #test} is called on the delivering thread (an event loop or a publishing
 * thread) for every message routed to the subscription; it must not block and must be safe to
 * call from several threads at once. The filters made here are immutable and meet that contract;
 * a header policy's {@code test} allocates nothing.
 */
public interface MessageFilter {

    /**
     * Tests one message. Never throws for a policy filter: a message the policy cannot read (a
     * body that is not JSON, a header that is not a number) simply does not match.
     *
     * @param message the message, valid only during the call
     * @return {@code true} to deliver it to the subscription
     */
    boolean test(Message message);

    /**
     * @return what the filter is, for monitoring ({@code /subsz}): a policy filter's normalized
     *         spec (compact JSON, preceded by {@code body } for a body policy), which
     *         {@link #parse} reads back to an equal filter; {@code predicate: <toString>} for a
     *         predicate
     */
    String text();

    /**
     * Compiles an SNS filter policy over the message headers (SNS's {@code MessageAttributes}
     * scope), e.g. {@code {"region":["eu"],"amount":[{"numeric":[">",100]}]}}. A header with several
     * values matches when any of them does; numeric operators read a header value as a decimal
     * number.
     *
     * @param policyJson the policy, at most 16,384 characters
     * @return the filter; its {@code test} allocates nothing
     * @throws IllegalArgumentException naming the bad part with its JSON path, for invalid JSON, an
     *                                  unknown operator, a bad operand or a policy over a limit
     */
    static MessageFilter headers(String policyJson) {
        return FilterPolicyCompiler.compileHeaders(policyJson);
    }

    /**
     * Compiles an SNS filter policy over the JSON body (SNS's {@code MessageBody} scope), where
     * nested objects in the policy follow nested objects in the body, e.g.
     * {@code {"order":{"total":[{"numeric":[">",100]}]}}}. The payload may be a {@code byte[]}
     * (UTF-8 JSON, as network messages carry it), a {@code CharSequence} of JSON, or a
     * {@code java.util.Map<String, ?>} of nested maps, lists, numbers, strings and booleans;
     * anything else, or text that is not a JSON object, does not match.
     *
     * @param policyJson the policy, at most 16,384 characters
     * @return the filter; its {@code test} reads the body on every call (only the policy's keys
     *         are kept), so it allocates
     * @throws IllegalArgumentException naming the bad part with its JSON path
     */
    static MessageFilter body(String policyJson) {
        return FilterPolicyCompiler.compileBody(policyJson);
    }

    /**
     * Compiles a filter spec, the text form a network client sends: a policy object (over
     * headers), or {@code headers} or {@code body} then a policy object, e.g.
     * {@code body {"order":{"status":["paid"]}}}. Reads back what {@link #text()} gives.
     *
     * @param spec the spec
     * @return the filter
     * @throws IllegalArgumentException for a spec that is not one of those forms, naming it, or
     *                                  for an invalid policy as {@link #headers} and {@link #body} say
     */
    static MessageFilter parse(String spec) {
        return FilterPolicyCompiler.parse(spec);
    }

    /**
     * Wraps an in-process predicate.
     *
     * @param predicate called as {@link #test} is: on delivering threads, concurrently; must not
     *                  block, and should not throw (what a throw does is the delivery path's rule)
     * @return the filter; {@link #text()} is {@code predicate: } and the predicate's {@code toString}
     * @throws IllegalArgumentException when {@code predicate} is {@code null}
     */
    static MessageFilter of(Predicate<Message> predicate) {
        return new PredicateFilter(predicate);
    }
}
