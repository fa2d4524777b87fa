package io.ringbus.jetstream.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * JetStream's Micrometer meters in the server's registry (listed in docs/metrics.md), tagged
 * {@code server} with the server's name and nothing else: no tag per stream or consumer, so the
 * series are a fixed handful however many streams there are (their figures are in {@code /jsz}).
 * Each reads {@link JetStreamFigures} when scraped; nothing is added to the API's or the
 * consumers' paths.
 */
final class JetStreamMeters implements AutoCloseable {
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();

    /** Registers the meters. */
    JetStreamMeters(MeterRegistry registry, JetStreamFigures figures) {
        this.registry = registry;
        Tags tags = Tags.of("server", figures.serverName);
        gauge("ringbus.jetstream.streams", "JetStream streams now", figures, f -> f.totals().streams(), tags);
        gauge("ringbus.jetstream.consumers", "JetStream consumers now", figures, JetStreamFigures::consumerCount,
                tags);
        gauge("ringbus.jetstream.messages", "messages in every stream now", figures, f -> f.totals().messages(), tags);
        gauge("ringbus.jetstream.bytes", "bytes of every stream's messages now", figures, f -> f.totals().bytes(),
                tags);
        counter("ringbus.jetstream.api.requests", "$JS.API requests answered, as nats-server counts api.total",
                figures, f -> f.api.apiTotal(), tags);
        counter("ringbus.jetstream.api.errors", "$JS.API requests answered with an error (api.errors)", figures,
                f -> f.api.apiErrors(), tags);
        counter("ringbus.jetstream.api.refused", "$JS.API requests answered 503 because the API's queue was full",
                figures, f -> f.dispatcher.refused(), tags);
        if (figures.consumers != null) {
            counter("ringbus.jetstream.acks.dropped", "acks dropped because their queue was full (redelivered later)",
                    figures, f -> f.consumers.droppedAcks(), tags);
        }
    }

    private void gauge(String name, String description, JetStreamFigures figures,
                       ToDoubleFunction<JetStreamFigures> value, Tags tags) {
        // Held strongly: the registry may outlive the extension's other references; close() removes them.
        meters.add(Gauge.builder(name, figures, value).description(description).tags(tags).strongReference(true)
                .register(registry));
    }

    private void counter(String name, String description, JetStreamFigures figures,
                         ToDoubleFunction<JetStreamFigures> value, Tags tags) {
        meters.add(FunctionCounter.builder(name, figures, value).description(description).tags(tags)
                .register(registry));
    }

    /** Removes the meters (the extension closed; the registry may outlive the server). */
    @Override
    public void close() {
        meters.forEach(registry::remove);
        meters.clear();
    }
}
