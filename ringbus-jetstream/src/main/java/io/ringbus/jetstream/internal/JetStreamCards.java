package io.ringbus.jetstream.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbus.core.Scope;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamInfo;
import io.ringbus.server.spi.DashboardCard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * JetStream's two dashboard cards: the streams (read when the dashboard asks) and the consumers.
 * A consumer's state belongs to the consumers' thread, which the monitor's must not wait for: each
 * refresh of the dashboard shows the infos the previous one asked that thread for, and asks for
 * the next (so the consumers card is one refresh, a second, behind). The dashboard is ROOT's:
 * every stream is shown.
 */
final class JetStreamCards {
    private final JetStreamFigures figures;
    private final AtomicBoolean asking = new AtomicBoolean();
    private volatile Map<String, List<ObjectNode>> consumers = Map.of();

    JetStreamCards(JetStreamFigures figures) {
        this.figures = figures;
    }

    /** @return the streams card: each stream's subjects, messages, bytes, sequences and consumers */
    DashboardCard streams() {
        List<List<Object>> rows = new ArrayList<>();
        for (StoredStream stream : figures.visible(Scope.ROOT)) {
            String name = stream.config().name();
            StreamInfo info;
            try {
                info = stream.info();
            } catch (RuntimeException closing) {
                continue;
            }
            // As nats-server's state: an empty stream's first sequence is the next one (0 when it never had one).
            long first = info.messages() > 0 ? info.firstSequence()
                    : info.lastSequence() == 0 ? 0 : info.lastSequence() + 1;
            rows.add(List.of(name, String.join(" ", stream.config().subjects()), info.messages(), info.bytes(),
                    first, info.lastSequence(), figures.consumerCount(name)));
        }
        String note = rows.size() + " streams, " + figures.consumerCount() + " consumers; API " + figures.api.apiTotal()
                + " requests, " + figures.api.apiErrors() + " errors, " + figures.dispatcher.refused()
                + " refused (queue full)";
        return new DashboardCard("JetStream streams", note, List.of("stream", "subjects", "messages", "bytes",
                "first seq", "last seq", "consumers"), rows, "no streams");
    }

    /** @return the consumers card, from the infos the last refresh asked for; asks for the next */
    DashboardCard consumers() {
        if (figures.consumers == null) {
            return new DashboardCard("JetStream consumers", null, List.of("consumer"), List.of(),
                    "not served: the store keeps no documents");
        }
        if (asking.compareAndSet(false, true)) {
            figures.consumers.infos(stream -> true, false).whenComplete((infos, error) -> {
                if (infos != null) {
                    consumers = infos;
                }
                asking.set(false);
            });
        }
        List<List<Object>> rows = new ArrayList<>();
        consumers.forEach((stream, infos) -> infos.forEach(info -> rows.add(List.of(stream,
                info.path("name").asText(), info.path("num_pending").asLong(), info.path("num_ack_pending").asLong(),
                info.path("num_redelivered").asLong(), info.path("num_waiting").asLong(),
                info.path("delivered").path("stream_seq").asLong(), info.path("ack_floor").path("stream_seq")
                        .asLong()))));
        return new DashboardCard("JetStream consumers", "as of the previous refresh", List.of("stream", "consumer",
                "pending", "ack pending", "redelivered", "waiting pulls", "delivered seq", "ack floor seq"), rows,
                "no consumers");
    }
}
