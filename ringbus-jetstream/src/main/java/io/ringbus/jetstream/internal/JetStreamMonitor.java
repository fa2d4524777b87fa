package io.ringbus.jetstream.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringbus.jetstream.internal.consumer.Consumers;
import io.ringbus.server.spi.ExtensionContext;

/**
 * JetStream's monitoring, registered with the server's monitor and meter registry: {@code /jsz}
 * ({@link JszEndpoint}), {@code /varz}'s {@code jetstream}, the dashboard's streams and consumers
 * cards ({@link JetStreamCards}) and the meters ({@link JetStreamMeters}). The monitor lives in
 * ringbus-server and knows nothing of JetStream: it serves what this registers.
 */
public final class JetStreamMonitor implements AutoCloseable {
    /** Held here while the extension runs: Micrometer's function counters hold it only weakly. */
    private final JetStreamFigures figures;
    private final JetStreamMeters meters;

    private JetStreamMonitor(JetStreamFigures figures, JetStreamMeters meters) {
        this.figures = figures;
        this.meters = meters;
    }

    /**
     * Registers everything with the server.
     *
     * @param context    the server
     * @param api        the streams' API (catalog and counters)
     * @param consumers  the consumers, or {@code null} when none are served
     * @param dispatcher the API's queue (its refusals)
     * @return what to close when the extension closes (the meters)
     */
    public static JetStreamMonitor register(ExtensionContext context, StreamsApi api, Consumers consumers,
                                            ApiDispatcher dispatcher) {
        JetStreamFigures figures = new JetStreamFigures(context.broker(), api, consumers, dispatcher,
                context.storage(), context.serverId(), context.serverName());
        context.monitor("/jsz", new JszEndpoint(figures));
        context.varz("jetstream", figures::varz);
        JetStreamCards cards = new JetStreamCards(figures);
        context.dashboard(cards::streams);
        context.dashboard(cards::consumers);
        MeterRegistry registry = context.meterRegistry();
        return new JetStreamMonitor(figures, registry == null ? null : new JetStreamMeters(registry, figures));
    }

    /** Removes the meters. */
    @Override
    public void close() {
        if (meters != null) {
            meters.close();
        }
    }
}
