package io.ringbus.core.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.ringbus.core.DropReason;
import io.ringbus.core.ExecutionMode;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The meters of one {@code pattern} tag (see {@code docs/metrics.md}): delivered and handler
 * latency per mode (registered when the first subscription of that mode arrives), handler
 * errors, pending and lag (with the tag), dropped per reason (at the first drop). Every meter
 * but the timer reads {@link PatternStats} when scraped. Removed from the registry by
 * {@link #close()} when the last subscription of the tag is gone.
 */
final class PatternMeters extends PatternStats {
    /** Handler latency histogram range: ring handlers run in microseconds, blocked ones for seconds. */
    static final Duration LATENCY_MIN = Duration.ofNanos(1_000);
    static final Duration LATENCY_MAX = Duration.ofSeconds(10);

    private final MeterRegistry registry;
    private final Tags tags;
    private final Timer[] timers = new Timer[ExecutionMode.values().length];
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private boolean closed;

    PatternMeters(MeterRegistry registry, Tags brokerTags, String tag, int latencySampling, RingBroker broker) {
        super(tag, latencySampling);
        this.registry = registry;
        this.tags = brokerTags.and("pattern", tag);
        meters.add(FunctionCounter.builder("ringbus.handler.errors", this, PatternStats::handlerErrors)
                .description("exceptions thrown by handlers of subscriptions with this pattern")
                .tags(tags).register(registry));
        meters.add(Gauge.builder("ringbus.subscription.pending", this, PatternStats::pending)
                .description("messages buffered, not yet handled, for subscriptions with this pattern")
                .tags(tags).register(registry));
        meters.add(Gauge.builder("ringbus.subscription.lag", this, stats -> stats.lag(broker))
                .description("largest backlog of one subscription with this pattern: ring entries its "
                        + "event loop has not dispatched plus its buffered messages")
                .tags(tags).register(registry));
    }

    /** Registers the delivered counter and the latency timer of {@code mode}, once; owner's lock held. */
    void addMode(ExecutionMode mode) {
        if (timers[mode.ordinal()] != null) {
            return;
        }
        Tags modeTags = tags.and("mode", mode.name());
        meters.add(FunctionCounter.builder("ringbus.delivered", this, stats -> stats.delivered(mode))
                .description("handler calls made for subscriptions with this pattern and mode")
                .tags(modeTags).register(registry));
        Timer timer = Timer.builder("ringbus.handler.latency")
                .description("duration of one handler call")
                .tags(modeTags)
                .publishPercentileHistogram()
                .minimumExpectedValue(LATENCY_MIN)
                .maximumExpectedValue(LATENCY_MAX)
                .register(registry);
        meters.add(timer);
        // Published last: the hot path reads the array only for subscribers created after this.
        timers[mode.ordinal()] = timer;
    }

    @Override
    void recordHandler(ExecutionMode mode, long nanos) {
        timers[mode.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    void firstDrop(DropReason reason) {
        lock.lock();
        try {
            if (!closed) {
                // Registering an existing id returns the existing meter: a repeated call is harmless.
                meters.add(FunctionCounter.builder("ringbus.dropped", this, stats -> stats.dropped(reason))
                        .description("messages that did not reach a subscription with this pattern")
                        .tags(tags.and("reason", reason.name())).register(registry));
            }
        } finally {
            lock.unlock();
        }
    }

    /** Removes every meter of this tag from the registry; later drops register nothing. */
    void close() {
        lock.lock();
        try {
            closed = true;
            for (Meter meter : meters) {
                registry.remove(meter);
            }
            meters.clear();
        } finally {
            lock.unlock();
        }
    }
}
