package io.ringbus.bench.blocking;

import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Client;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.OverflowPolicy;
import io.ringbus.core.SubscribeOptions;

/**
 * The receiver configurations of the seed's Vert.x tuning experiment, expressed with ringbus
 * execution modes. Every subscription uses {@link OverflowPolicy#BLOCK}: nothing is dropped, and a
 * receiver that cannot keep up slows the sender once the ring and buffers are full.
 */
public enum SteadySetup {
    /** One event loop running the blocking handler: the article's default case. */
    ONE_EVENT_LOOP("event-loop x1") {
        @Override
        void configure(BrokerBuilder builder) {
            builder.eventLoops(1);
        }

        @Override
        void subscribe(Client client, String subject, MessageHandler handler, int bufferSize) {
            client.subscribe(subject, handler, SubscribeOptions.defaults().mode(ExecutionMode.EVENT_LOOP));
        }
    },
    /**
     * 2 x cores event loops and a queue group with one event-loop member per loop: the article's
     * N verticle instances, each message handled by one of them.
     */
    EVENT_LOOPS_2X_CORES("event-loop x2*cores, queue group") {
        @Override
        void configure(BrokerBuilder builder) {
            builder.eventLoops(loops());
        }

        @Override
        void subscribe(Client client, String subject, MessageHandler handler, int bufferSize) {
            SubscribeOptions options = SubscribeOptions.defaults().mode(ExecutionMode.EVENT_LOOP).queueGroup("receivers");
            for (int i = 0; i < loops(); i++) {
                client.subscribe(subject, handler, options);
            }
        }

        private int loops() {
            return 2 * Runtime.getRuntime().availableProcessors();
        }
    },
    /**
     * 2 x cores event loops, one plain subscription per loop, each handling every N-th message
     * and skipping the rest: the parallelism N event loops can give, for comparison with the
     * queue group above.
     */
    EVENT_LOOPS_2X_CORES_PARTITIONED("event-loop x2*cores, partitioned") {
        @Override
        void configure(BrokerBuilder builder) {
            builder.eventLoops(2 * Runtime.getRuntime().availableProcessors());
        }

        @Override
        void subscribe(Client client, String subject, MessageHandler handler, int bufferSize) {
            int members = 2 * Runtime.getRuntime().availableProcessors();
            SubscribeOptions options = SubscribeOptions.defaults().mode(ExecutionMode.EVENT_LOOP);
            for (int i = 0; i < members; i++) {
                long mine = i;
                client.subscribe(subject, message -> {
                    if ((Long) message.payload() % members == mine) {
                        handler.onMessage(message);
                    }
                }, options);
            }
        }
    },
    /** Ten worker threads, unordered, up to ten calls at once: the article's worker verticles. */
    WORKER_10("worker x10, unordered") {
        @Override
        void configure(BrokerBuilder builder) {
            builder.workerPoolSize(10);
        }

        @Override
        void subscribe(Client client, String subject, MessageHandler handler, int bufferSize) {
            client.subscribe(subject, handler, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).ordered(false)
                    .maxConcurrency(10).bufferSize(bufferSize).overflow(OverflowPolicy.BLOCK));
        }
    },
    /** A virtual thread per activation, unordered: what executeBlocking(ordered=false) approximates. */
    VIRTUAL("virtual, unordered") {
        @Override
        void configure(BrokerBuilder builder) {
            // the defaults are enough: virtual threads need no pool
        }

        @Override
        void subscribe(Client client, String subject, MessageHandler handler, int bufferSize) {
            client.subscribe(subject, handler, SubscribeOptions.defaults().mode(ExecutionMode.VIRTUAL).ordered(false)
                    .maxConcurrency(1_000).bufferSize(bufferSize).overflow(OverflowPolicy.BLOCK));
        }
    };

    private final String label;

    SteadySetup(String label) {
        this.label = label;
    }

    /** @return the name used in reports */
    public String label() {
        return label;
    }

    /**
     * Sets the broker options this setup needs.
     *
     * @param builder the broker builder
     */
    abstract void configure(BrokerBuilder builder);

    /**
     * Subscribes the receiver.
     *
     * @param client     where to subscribe
     * @param subject    the subject the sender publishes to
     * @param handler    the blocking receiver
     * @param bufferSize per-subscriber buffer for WORKER and VIRTUAL
     */
    abstract void subscribe(Client client, String subject, MessageHandler handler, int bufferSize);
}
