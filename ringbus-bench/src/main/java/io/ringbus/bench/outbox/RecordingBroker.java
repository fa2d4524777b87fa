package io.ringbus.bench.outbox;

import io.ringbus.core.Broker;
import io.ringbus.outbox.BrokerSink;
import io.ringbus.outbox.OutboxSink;

/**
 * The in-process destination of the throughput and latency runs: a ringbus broker with one
 * EVENT_LOOP subscriber that records each event's delivery instant in a {@link DeliveryLog}.
 * Relays deliver to it through {@link BrokerSink}, so "delivered" here means handled by the
 * subscriber, one broker hop after the relay's publish.
 */
final class RecordingBroker implements AutoCloseable {
    private final Broker broker;
    private final BrokerSink sink;

    /**
     * @param log where deliveries go; its {@code delivered} runs on the broker's event loop
     */
    RecordingBroker(DeliveryLog log) {
        broker = Broker.builder().name("outbox-bench").build();
        broker.subscribe(EventPayload.SUBJECT,
                message -> log.delivered(EventPayload.sequence((byte[]) message.payload()), System.nanoTime()));
        sink = new BrokerSink(broker);
    }

    /** @return the sink every contender delivers to */
    OutboxSink sink() {
        return sink;
    }

    /** Closes the broker, after its subscriber handled what is in the ring. */
    @Override
    public void close() {
        broker.close();
    }
}
