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
        if (broker.hasFederation()) {
            federation(r, broker);
        }
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

    /**
     * Registers a durable subscription's meters, tagged with its stream and consumer:
     * {@code ringbus.durable.pending} (stored, not yet delivered), {@code ringbus.durable.unacked}
     * (delivered, not yet acknowledged), {@code ringbus.durable.redelivered} and
     * {@code ringbus.durable.dead.lettered}.
     *
     * @return what removes them again (the subscription ended)
     */
    Runnable registerDurable(DurableSubscription subscription, String stream, String consumer) {
        Tags t = tags.and("stream", stream, "consumer", consumer);
        List<Meter> own = List.of(
                Gauge.builder("ringbus.durable.pending", subscription, s -> s.consumerStats().pending())
                        .description("stored messages the durable consumer has not been given yet").tags(t)
                        .register(registry),
                Gauge.builder("ringbus.durable.unacked", subscription, s -> s.consumerStats().ackPending())
                        .description("messages delivered to the durable consumer and not yet acknowledged")
                        .tags(t).register(registry),
                FunctionCounter.builder("ringbus.durable.redelivered", subscription,
                                s -> s.consumerStats().redelivered())
                        .description("deliveries that were redeliveries").tags(t).register(registry),
                FunctionCounter.builder("ringbus.durable.dead.lettered", subscription, DurableSubscription::dropped)
                        .description("messages given up to the dead-letter subject").tags(t).register(registry));
        lock.lock();
        try {
            meters.addAll(own);
        } finally {
            lock.unlock();
        }
        return () -> {
            lock.lock();
            try {
                for (Meter meter : own) {
                    registry.remove(meter);
                    meters.remove(meter);
                }
            } finally {
                lock.unlock();
            }
        };
    }

    /** The federation link's meters: its state and counts, read from its stats at each scrape. */
    private void federation(MeterRegistry r, RingBroker broker) {
        meters.add(Gauge.builder("ringbus.federation.connected", broker,
                        b -> "CONNECTED".equals(b.federationStats().state()) ? 1 : 0)
                .description("1 while the federation link is connected").tags(tags).register(r));
        meters.add(Gauge.builder("ringbus.federation.interest", broker, b -> b.federationStats().interest())
                .description("patterns (with queue groups) this node receives from other nodes").tags(tags)
                .register(r));
        meters.add(Gauge.builder("ringbus.federation.pending", broker, b -> b.federationStats().pending())
                .description("the link's lag: messages from other nodes received and not yet delivered").tags(tags)
                .register(r));
        meters.add(FunctionCounter.builder("ringbus.federation.sent", broker, b -> b.federationStats().sent())
                .description("messages sent to other nodes").tags(tags).register(r));
        meters.add(FunctionCounter.builder("ringbus.federation.received", broker,
                        b -> b.federationStats().received())
                .description("messages received from other nodes and delivered here").tags(tags).register(r));
        meters.add(FunctionCounter.builder("ringbus.federation.not.sent", broker, b -> b.federationStats().notSent())
                .description("messages lost for the other nodes (link down past its buffer, payload that cannot "
                        + "cross)").tags(tags).register(r));
        meters.add(FunctionCounter.builder("ringbus.federation.dropped", broker, b -> b.federationStats().dropped())
                .description("messages from other nodes dropped while this node was too slow").tags(tags)
                .register(r));
        meters.add(FunctionCounter.builder("ringbus.federation.reconnects", broker,
                        b -> b.federationStats().reconnects())
                .description("reconnections of the federation link").tags(tags).register(r));
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
