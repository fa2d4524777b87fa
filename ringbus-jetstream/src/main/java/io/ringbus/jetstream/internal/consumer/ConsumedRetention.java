package io.ringbus.jetstream.internal.consumer;

import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * JetStream's {@code workqueue} and {@code interest} retention for the streams its consumers read:
 * what every consumer of the stream acknowledged goes. The consumers' thread computes each stream's
 * floor, the lowest ack floor of its consumers (a stream with {@code interest} retention and no
 * consumer keeps nothing; a work queue without one keeps everything, as nats-server), and this
 * class's own thread purges below it ({@link StoredStream#purge}: one durable floor, the segments
 * below it deleted), off the consumers' thread, which must not wait for the disk. Coarser than
 * nats-server, which removes each message as it is acknowledged: a message acknowledged out of
 * order stays until the floor passes it.
 *
 * <p>Threading: {@link #apply} on the consumers' thread; purges on {@link #remover}.
 */
final class ConsumedRetention implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumedRetention.class);

    private final ExecutorService remover = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("ringbus-jetstream-retention").daemon(true).factory());
    /** The floor last asked for, per stream; the consumers' thread only. */
    private final Map<String, Long> asked = new HashMap<>();

    /**
     * @param stream    the stream
     * @param retention {@code limits}, {@code workqueue} or {@code interest}
     * @param consumers its consumers now
     */
    void apply(StoredStream stream, String retention, Collection<JsConsumer> consumers) {
        if (retention.equals("limits")) {
            return;
        }
        long floor;
        if (consumers.isEmpty()) {
            if (!retention.equals("interest")) {
                return;
            }
            floor = stream.info().lastSequence();
        } else {
            floor = Long.MAX_VALUE;
            for (JsConsumer consumer : consumers) {
                floor = Math.min(floor, consumer.ackFloorStream);
            }
        }
        String name = stream.config().name();
        if (floor <= asked.getOrDefault(name, 0L)) {
            return;
        }
        asked.put(name, floor);
        long below = floor + 1;
        try {
            remover.execute(() -> purge(stream, below));
        } catch (RejectedExecutionException closed) {
            asked.remove(name);
        }
    }

    /** A stream went (deleted, or replaced by an update): its floor is asked again. */
    void forget(String stream) {
        asked.remove(stream);
    }

    private static void purge(StoredStream stream, long below) {
        try {
            stream.purge(null, below, 0);
        } catch (StorageException | IllegalStateException | UnsupportedOperationException e) {
            LOG.debug("jetstream: retention of stream {} below {} not applied: {}", stream.config().name(), below,
                    e.toString());
        }
    }

    @Override
    public void close() {
        remover.shutdownNow();
        try {
            remover.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
