package io.ringbus.core.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.ringbus.core.ExecutionMode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A broker's Micrometer meters (listed in {@code docs/metrics.md}). Together with
 * {@link PatternMeters} the only core classes that use Micrometer: a broker built without a
 * registry never loads either, so micrometer-core is an optional dependency.
 *
 * <p>Broker-wide meters read the broker's own counters when scraped. Subscriptions are grouped by
 * their pattern text into one {@link PatternMeters} per distinct {@code pattern} tag, so 1,000
 * clients subscribed to {@code orders.>} make one series. Reply inboxes ({@code _INBOX.} ...,
 * one per client or request) share the tag {@code _INBOX.>}. At most {@code patternLimit}
 * distinct tags exist at once; a subscription with a new pattern beyond that gets the tag
 * {@code _other} and is counted by {@code ringbus.pattern.overflow}. A tag's meters are removed
 * when its last subscription goes, which frees its place under the limit.
 *
 * <p>Thread-safety: {@link #acquire} and {@link #release} run on subscribing and retiring threads
 * under one lock; never on the publish or dispatch path.
 */
final class BrokerMeters {
    /** The tag of patterns beyond the limit. */
    static final String OTHER = "_other";
    /** The tag of every reply-inbox subscription. */
    static final String INBOX = "_INBOX.>";

    private final MeterRegistry registry;
    private final Tags tags;
    private final RingBroker broker;
    private final int patternLimit;
    private final int latencySampling;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, PatternMeters> patterns = new HashMap<>();
    private final List<Meter> meters = new ArrayList<>();
    private final Counter overflow;

    BrokerMeters(Object registry, String brokerName, int patternLimit, int latencySampling, RingBroker broker) {
        this.registry = (MeterRegistry) registry;
        this.tags = Tags.of("broker", brokerName);
        this.broker = broker;
        this.patternLimit = patternLimit;
        this.latencySampling = latencySampling;
        MeterRegistry r = this.registry;
        meters.add(FunctionCounter.builder("ringbus.published", broker, RingBroker::published)
                .description("messages accepted into the ring").tags(tags).register(r));
        meters.add(Gauge.builder("ringbus.ring.remaining", broker, RingBroker::ringRemaining)
                .description("free slots in the ring").tags(tags).register(r));
        meters.add(Gauge.builder("ringbus.ring.size", broker, RingBroker::ringSize)
                .description("slots in the ring").tags(tags).register(r));
        meters.add(Gauge.builder("ringbus.subscriptions", broker, RingBroker::subscriptionCount)
                .description("active subscriptions").tags(tags).register(r));
        for (ExecutionMode mode : ExecutionMode.values()) {
            meters.add(FunctionCounter.builder("ringbus.watchdog.warnings", broker,
                            b -> b.watchdog().warnings(mode))
                    .description("blocked-handler warnings raised by the watchdog")
                    .tags(tags.and("mode", mode.name())).register(r));
        }
        overflow = Counter.builder("ringbus.pattern.overflow")
                .description("subscriptions reported under pattern=\"_other\" because the pattern limit was reached")
                .tags(tags).register(r);
        meters.add(overflow);
    }

    /**
     * Finds or creates the stats of {@code pattern}'s tag and registers its meters for
     * {@code mode}; the caller must {@link #release} it exactly once (attached or not).
     */
    PatternStats acquire(String pattern, ExecutionMode mode) {
        String tag = pattern.startsWith("_INBOX.") ? INBOX : pattern;
        lock.lock();
        try {
            PatternMeters meters = patterns.get(tag);
            if (meters == null) {
                if (patterns.size() - (patterns.containsKey(OTHER) ? 1 : 0) >= patternLimit) {
                    tag = OTHER;
                    overflow.increment();
                    meters = patterns.get(OTHER);
                }
                if (meters == null) {
                    meters = new PatternMeters(registry, tags, tag, latencySampling, broker);
                    patterns.put(tag, meters);
                }
            }
            meters.addMode(mode);
            meters.references++;
            return meters;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A subscription holding {@code stats} is gone ({@code subscriber} is {@code null} when it
     * failed before being attached): the last one removes the tag's meters.
     */
    void release(Subscriber subscriber, PatternStats stats) {
        if (subscriber != null) {
            stats.detach(subscriber);
        }
        lock.lock();
        try {
            if (--stats.references == 0) {
                patterns.remove(stats.tag, stats);
                ((PatternMeters) stats).close();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The broker closed: removes every meter it registered. */
    void close() {
        lock.lock();
        try {
            for (PatternMeters pattern : patterns.values()) {
                pattern.close();
            }
            patterns.clear();
            for (Meter meter : meters) {
                registry.remove(meter);
            }
            meters.clear();
        } finally {
            lock.unlock();
        }
    }
}
