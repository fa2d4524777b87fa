package io.ringbus.bench.seed;

import io.vertx.core.AbstractVerticle;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageCodec;

import java.util.concurrent.TimeUnit;

/**
 * Vert.x 4's local event bus with default options (2 x cores event loops): each subscriber is a
 * {@code localConsumer} registered by its own verticle, so Vert.x spreads them over its event
 * loops the way an application deploying verticles would. The payload travels through a codec
 * whose {@code transform} returns the object itself, so nothing is copied or serialized.
 * Publishers are plain threads calling {@code publish}. Vert.x queues deliveries on the event
 * loops without bound: there is no backpressure.
 */
final class VertxEventBusContender implements Contender {
    private Vertx vertx;
    private EventBus bus;

    /** Passes the payload by reference; local delivery only. */
    static final class LocalCodec implements MessageCodec<SeedEvent, SeedEvent> {
        @Override
        public void encodeToWire(Buffer buffer, SeedEvent event) {
            throw new UnsupportedOperationException("local delivery only");
        }

        @Override
        public SeedEvent decodeFromWire(int pos, Buffer buffer) {
            throw new UnsupportedOperationException("local delivery only");
        }

        @Override
        public SeedEvent transform(SeedEvent event) {
            return event;
        }

        @Override
        public String name() {
            return "seed-event-local";
        }

        @Override
        public byte systemCodecID() {
            return -1;
        }
    }

    /** Registers one consumer on its own event-loop context. */
    static final class ConsumerVerticle extends AbstractVerticle {
        private final String address;
        private final SeedSubscriber subscriber;

        ConsumerVerticle(String address, SeedSubscriber subscriber) {
            this.address = address;
            this.subscriber = subscriber;
        }

        @Override
        public void start(Promise<Void> started) {
            vertx.eventBus().<SeedEvent>localConsumer(address, message -> subscriber.onEvent(message.body()))
                    .completionHandler(started);
        }
    }

    @Override
    public String name() {
        return ContenderKind.VERTX_EVENTBUS.label();
    }

    @Override
    public boolean keepsProducerOrder() {
        return true;
    }

    @Override
    public void start(SeedTopology topology) throws Exception {
        vertx = Vertx.vertx();
        bus = vertx.eventBus();
        bus.registerDefaultCodec(SeedEvent.class, new LocalCodec());
        for (int s = 0; s < topology.subjects().length; s++) {
            for (SeedSubscriber subscriber : topology.subscribers()[s]) {
                await(vertx.deployVerticle(new ConsumerVerticle(topology.subjects()[s], subscriber)));
            }
        }
    }

    @Override
    public void publish(String subject, SeedEvent event) {
        bus.publish(subject, event);
    }

    @Override
    public void close() throws Exception {
        await(vertx.close());
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
