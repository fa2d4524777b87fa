package io.ringbus.bench.jmh;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.WaitStrategy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Publish throughput into one broker with {@code subscribers} EVENT_LOOP subscribers on one event
 * loop, each counting. One operation is one {@code publish} of a preallocated payload to one
 * subject, which becomes {@code subscribers} handler calls; the ring (16,384 slots) fills, so the
 * steady state is the dispatch rate. Run with {@code -prof gc}: {@code gc.alloc.rate.norm} should
 * be about 0 B/op, since publishing and event-loop dispatch allocate nothing.
 *
 * <p>{@code registry=prometheus} builds the broker with a {@code PrometheusMeterRegistry}: every
 * handler call is then timed (two clock reads and a histogram update, still no allocation).
 *
 * <pre>
 * java -jar ringbus-bench/target/ringbus-bench.jar jmh PublishBenchmark -prof gc
 * java -jar ringbus-bench/target/ringbus-bench.jar jmh PublishBenchmark -prof gc -p registry=none,prometheus
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PublishBenchmark {
    private static final String SUBJECT = "bench.publish";
    /** The payload every publish hands over; {@link Counter} counts only it. */
    static final Object PAYLOAD = new Object();

    /** EVENT_LOOP subscribers of the subject. */
    @Param({"1", "4", "16"})
    public int subscribers;

    /** The event loop's wait strategy, a {@link WaitStrategy} name. */
    @Param({"YIELDING"})
    public String waitStrategy;

    /** {@code none}, or {@code prometheus} for a broker with a meter registry. */
    @Param({"none"})
    public String registry;

    private Broker broker;
    private Counter[] counters;

    /** Creates the state; JMH instantiates it once per trial. */
    public PublishBenchmark() {
    }

    /** A subscriber that counts; called only on the one event loop. */
    static final class Counter implements MessageHandler {
        long count;

        @Override
        public void onMessage(Message message) {
            if (message.payload() == PAYLOAD) {
                count++;
            }
        }
    }

    /** Starts the broker and subscribes the counters. */
    @Setup(Level.Trial)
    public void start() {
        BrokerBuilder builder = Broker.builder().name("jmh").ringSize(16_384).eventLoops(1)
                .waitStrategy(WaitStrategy.valueOf(waitStrategy));
        switch (registry) {
            case "none" -> { }
            case "prometheus" -> builder.meterRegistry(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
            default -> throw new IllegalArgumentException("registry must be none or prometheus: registry=" + registry);
        }
        broker = builder.build();
        counters = new Counter[subscribers];
        SubscribeOptions options = SubscribeOptions.defaults().mode(ExecutionMode.EVENT_LOOP);
        for (int i = 0; i < subscribers; i++) {
            counters[i] = new Counter();
            broker.subscribe(SUBJECT, counters[i], options);
        }
    }

    /**
     * Drains and stops the broker, and checks every subscriber received every message.
     *
     * @throws IllegalStateException when the subscribers' counts differ
     */
    @TearDown(Level.Trial)
    public void stop() {
        broker.close();
        long first = counters[0].count;
        for (Counter counter : counters) {
            if (counter.count != first || first == 0) {
                throw new IllegalStateException("subscribers disagree or got nothing: first=" + first
                        + ", this=" + counter.count);
            }
        }
    }

    /** One publisher thread. */
    @Benchmark
    @Threads(1)
    public void publish1Thread() {
        broker.publish(SUBJECT, PAYLOAD);
    }

    /** Four publisher threads contending for the ring. */
    @Benchmark
    @Threads(4)
    public void publish4Threads() {
        broker.publish(SUBJECT, PAYLOAD);
    }
}
