package io.ringbus.bench.seed;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerStats;
import io.ringbus.core.Client;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.OverflowPolicy;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;

/**
 * ringbus with scopes on: {@code seed.>} is registered FEDERATED and everything goes through a
 * PRIVATE client, so every publish and subscribe passes the scope check. Subscriptions are
 * ordered, with {@link OverflowPolicy#BLOCK}; the worker pool has one thread per core, like the
 * seed design's dispatch pool.
 */
final class RingbusContender implements Contender {
    private final String name;
    private final ExecutionMode mode;
    private final int eventLoops;
    private Broker broker;
    private Client client;

    RingbusContender(String name, ExecutionMode mode, int eventLoops) {
        this.name = name;
        this.mode = mode;
        this.eventLoops = eventLoops;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean keepsProducerOrder() {
        return true;
    }

    @Override
    public void start(SeedTopology topology) {
        broker = Broker.builder()
                .name(name)
                .ringSize(RingCapacity.SLOTS)
                .waitStrategy(topology.waitStrategy())
                .eventLoops(eventLoops)
                .workerPoolSize(Runtime.getRuntime().availableProcessors())
                .defaultScope(Scope.PRIVATE)
                .build();
        broker.registerSubject(SeedWorkload.SUBJECT_PATTERN, Scope.FEDERATED);
        client = broker.client(Scope.PRIVATE);
        SubscribeOptions options = SubscribeOptions.defaults().mode(mode).ordered(true).overflow(OverflowPolicy.BLOCK);
        for (int s = 0; s < topology.subjects().length; s++) {
            for (SeedSubscriber subscriber : topology.subscribers()[s]) {
                client.subscribe(topology.subjects()[s], message -> subscriber.onEvent((SeedEvent) message.payload()), options);
            }
        }
    }

    @Override
    public void publish(String subject, SeedEvent event) {
        client.publish(subject, event);
    }

    @Override
    public void close() {
        broker.close();
        BrokerStats stats = broker.stats();
        if (stats.droppedTotal() != 0 || stats.handlerErrors() != 0) {
            throw new IllegalStateException(name + ": broker reported drops or handler errors: dropped="
                    + stats.dropped() + ", handlerErrors=" + stats.handlerErrors());
        }
    }
}
