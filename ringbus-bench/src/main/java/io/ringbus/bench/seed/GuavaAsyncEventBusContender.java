package io.ringbus.bench.seed;

import com.google.common.eventbus.AsyncEventBus;
import com.google.common.eventbus.EventBus;
import com.google.common.eventbus.Subscribe;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Guava's {@link AsyncEventBus} on a fixed pool of one thread per core. Guava routes by the
 * event's Java class, and every subject here carries the same class, so each subject gets its own
 * bus (looked up by name on publish, as the other contenders look up their routes); the four
 * listeners of a subject register on its bus. Listener methods are not marked
 * {@code @AllowConcurrentEvents}, so Guava calls each one at a time. Guava's dispatcher does not
 * keep per-producer order across pool threads, and its executor queue is unbounded.
 */
final class GuavaAsyncEventBusContender implements Contender {
    private final Map<String, EventBus> buses = new HashMap<>();
    private ExecutorService executor;

    /** A Guava listener forwarding to a seed subscriber. Public: Guava invokes it reflectively. */
    public static final class Listener {
        private final SeedSubscriber subscriber;

        Listener(SeedSubscriber subscriber) {
            this.subscriber = subscriber;
        }

        /**
         * Receives one event from Guava.
         *
         * @param event the event
         */
        @Subscribe
        public void on(SeedEvent event) {
            subscriber.onEvent(event);
        }
    }

    @Override
    public String name() {
        return ContenderKind.GUAVA_ASYNC_EVENTBUS.label();
    }

    @Override
    public boolean keepsProducerOrder() {
        return false;
    }

    @Override
    public void start(SeedTopology topology) {
        executor = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(),
                Thread.ofPlatform().name("guava-bus-", 0).daemon(true).factory());
        for (int s = 0; s < topology.subjects().length; s++) {
            EventBus bus = new AsyncEventBus(topology.subjects()[s], executor);
            for (SeedSubscriber subscriber : topology.subscribers()[s]) {
                bus.register(new Listener(subscriber));
            }
            buses.put(topology.subjects()[s], bus);
        }
    }

    @Override
    public void publish(String subject, SeedEvent event) {
        buses.get(subject).post(event);
    }

    @Override
    public void close() throws InterruptedException {
        executor.shutdown();
        if (!executor.awaitTermination(1, TimeUnit.MINUTES)) {
            throw new IllegalStateException("Guava executor did not stop within 1 minute");
        }
    }
}
