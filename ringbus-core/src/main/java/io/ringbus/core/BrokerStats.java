package io.ringbus.core;

import java.util.List;
import java.util.Map;

/**
 * A snapshot of a broker's counters. Each counter is read without stopping the broker, so
 * counters taken together may be a few messages apart while traffic flows.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param published             messages accepted into the ring
 * @param rejected              {@code tryPublish} calls refused because the ring was full
 * @param publishWaits          {@code publish} calls that had to wait for room in the ring
 * @param delivered             handler calls made (one message to N subscribers counts N)
 * @param dropped               messages dropped, by reason; every reason is present
 * @param handlerErrors         exceptions thrown by handlers
 * @param ringSize              slots in the ring
 * @param ringRemainingCapacity free slots in the ring now
 * @param watchdogWarnings      blocked-handler warnings raised
 * @param subscriptions         every active live subscription
 * @param consumers             the store's counters of every active durable subscription (pending,
 *                              acknowledgement floor, redeliveries)
 * @param federation            the federation link's state and counters, or {@code null} without one
 * @param filterEvaluations     filter tests run on messages routed to filtered subscriptions; one test
 *                              whose answer served several subscriptions with alike filters (equal
 *                              policies) counts once (docs/routing.md, "Cost per message")
 */
public record BrokerStats(long published, long rejected, long publishWaits, long delivered,
                          Map<DropReason, Long> dropped, long handlerErrors, int ringSize,
                          long ringRemainingCapacity, long watchdogWarnings,
                          List<SubscriptionStats> subscriptions, List<ConsumerStats> consumers,
                          FederationStats federation, long filterEvaluations) {

    /** @return the sum of {@link #dropped()} over every reason */
    public long droppedTotal() {
        long total = 0;
        for (long count : dropped.values()) {
            total += count;
        }
        return total;
    }

    /**
     * One subscription's counters.
     *
     * @param id         the subscription id
     * @param pattern    its subject or pattern
     * @param scope      its scope
     * @param mode       its execution mode
     * @param queueGroup its queue group or {@code null}
     * @param pending    messages buffered, not yet handled
     * @param delivered  handler calls made
     * @param dropped    messages dropped under its overflow policy
     * @param filter     its filter's {@link MessageFilter#text()}, or {@code null} without one
     * @param filtered   messages its filter rejected
     */
    public record SubscriptionStats(long id, String pattern, Scope scope, ExecutionMode mode, String queueGroup,
                                    long pending, long delivered, long dropped, String filter, long filtered) {
    }
}
