package io.ringbus.bench.seed;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.BrokerStats;
import io.ringbus.core.Client;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.OverflowPolicy;
import io.ringbus.core.Scope;
import io.ringbus.core.SubscribeOptions;

/**
 * ringbus with scopes and wildcards on: {@code seed.>} is registered FEDERATED, everything goes
 * through a PRIVATE client, so every publish and subscribe passes the scope check, and half of
 * the subscriptions are wildcard patterns. Subscriptions are
 * ordered, with {@link OverflowPolicy#BLOCK}; the worker pool has one thread per core, like the
 * seed design's dispatch pool.
 */
final class RingbusContender implements Contender {
    private final String name;
    private final ExecutionMode mode;
    private final int eventLoops;
    /** 0: no meter registry; otherwise one handler call in this many is timed. */
    private final int latencySampling;
    private Broker broker;
    private Client client;
    private PrometheusMeterRegistry registry;

    RingbusContender(String name, ExecutionMode mode, int eventLoops, int latencySampling) {
        this.name = name;
        this.mode = mode;
        this.eventLoops = eventLoops;
        this.latencySampling = latencySampling;
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
        BrokerBuilder builder = Broker.builder();
        if (latencySampling > 0) {
            registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            builder.meterRegistry(registry).handlerLatencySampling(latencySampling);
        }
        broker = builder
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
            String subject = topology.subjects()[s];
            SeedSubscriber[] subscribers = topology.subscribers()[s];
            for (int k = 0; k < subscribers.length; k++) {
                SeedSubscriber subscriber = subscribers[k];
                client.subscribe(pattern(subject, k), message -> subscriber.onEvent((SeedEvent) message.payload()),
                        options);
            }
        }
    }

    /**
     * Routing with wildcards on: of each subject's subscribers, every 4th subscribes with
     * {@code seed.typeN.*}, every 4th with {@code seed.typeN.>}, the rest to the literal subject.
     * Each pattern matches only its own subject, so the dispatch count is unchanged.
     */
    private static String pattern(String subject, int subscriber) {
        String parent = subject.substring(0, subject.lastIndexOf('.'));
        return switch (subscriber % 4) {
            case 2 -> parent + ".*";
            case 3 -> parent + ".>";
            default -> subject;
        };
    }

    @Override
    public void publish(String subject, SeedEvent event) {
        client.publish(subject, event);
    }

    @Override
    public void close() {
        if (registry != null) {
            // After the timed part of the round: the timer saw every call (or its sample), and
            // the registry renders, as a Prometheus scrape would.
            // The subscribers have counted their last call, but that call's timer record may be a
            // few instructions behind: look again for up to a second before calling it wrong.
            long timed = 0;
            long delivered = 0;
            boolean complete = false;
            for (int attempt = 0; attempt < 100 && !complete; attempt++) {
                if (attempt > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
                }
                timed = registry.get("ringbus.handler.latency").timers().stream().mapToLong(Timer::count).sum();
                delivered = broker.stats().delivered();
                complete = latencySampling == 1 ? timed == delivered : timed > 0 && timed <= delivered;
            }
            if (!complete || registry.scrape().isEmpty()) {
                throw new IllegalStateException(name + ": handler latency counted " + timed + " calls, delivered="
                        + delivered);
            }
            registry.close();
        }
        broker.close();
        BrokerStats stats = broker.stats();
        if (stats.droppedTotal() != 0 || stats.handlerErrors() != 0) {
            throw new IllegalStateException(name + ": broker reported drops or handler errors: dropped="
                    + stats.dropped() + ", handlerErrors=" + stats.handlerErrors());
        }
    }
}
