package io.ringbus.outbox.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * A relay's Micrometer meters (listed in {@code docs/metrics.md}), tagged {@code outbox}
 * (schema.table) and {@code relay} (its name); the per-sink ones also {@code sink}. The only
 * outbox class that uses Micrometer: a relay started without a registry never loads it.
 *
 * <p>Gauges and counters read the relay's own counters when scraped. Pending and dead rows are
 * the relay's last count (every {@code countInterval}); before the first count they read NaN.
 * The latency timer is recorded once per delivered row, on the thread that completes it.
 */
final class RelayMeters {
    /** Latency histogram range: a healthy outbox delivers in milliseconds, a retried row in minutes. */
    private static final Duration LATENCY_MIN = Duration.ofMillis(1);
    private static final Duration LATENCY_MAX = Duration.ofHours(1);

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();

    RelayMeters(Object registry, String outbox, RelayGroup group, List<SinkChannel> channels) {
        this.registry = (MeterRegistry) registry;
        Tags tags = Tags.of("outbox", outbox, "relay", group.name());
        meters.add(Gauge.builder("ringbus.outbox.pending", group, g -> countOrNaN(g.pending()))
                .description("pending rows at the relay's last count").tags(tags).register(this.registry));
        meters.add(Gauge.builder("ringbus.outbox.dead", group, g -> countOrNaN(g.dead()))
                .description("dead letters at the relay's last count").tags(tags).register(this.registry));
        meters.add(Gauge.builder("ringbus.outbox.in.flight", group, RelayGroup::inFlight)
                .description("claimed rows not yet settled").tags(tags).register(this.registry));
        for (SinkChannel channel : channels) {
            Tags sinkTags = tags.and("sink", channel.sink().name());
            counter("ringbus.outbox.delivered", "rows delivered", channel, SinkChannel::delivered, sinkTags);
            counter("ringbus.outbox.retried", "failed attempts scheduled for a retry", channel,
                    SinkChannel::retried, sinkTags);
            counter("ringbus.outbox.dead.lettered", "rows moved to the dead letters", channel,
                    SinkChannel::deadLettered, sinkTags);
            Timer latency = Timer.builder("ringbus.outbox.delivery.latency")
                    .description("from the append (database clock) to the sink's acknowledgement")
                    .tags(sinkTags)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(LATENCY_MIN)
                    .maximumExpectedValue(LATENCY_MAX)
                    .register(this.registry);
            meters.add(latency);
            channel.latencyListener(micros -> latency.record(micros, TimeUnit.MICROSECONDS));
        }
    }

    private void counter(String name, String description, SinkChannel channel, ToDoubleFunction<SinkChannel> count,
                         Tags tags) {
        meters.add(FunctionCounter.builder(name, channel, count).description(description).tags(tags)
                .register(registry));
    }

    private static double countOrNaN(long count) {
        return count < 0 ? Double.NaN : count;
    }

    /** Removes the meters (the relay closed). */
    void close() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
        meters.clear();
    }
}
