package io.ringbus.bench.jmh;

import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Headers;
import io.ringbus.core.MessageFilter;
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
 * Content routing: messages per second through one broker (one publisher thread, one event loop)
 * to {@code subscribers} EVENT_LOOP subscriptions, where each subscriber wants a tenth of the
 * messages (attribute {@code region}, ten values). Three ways to say it:
 *
 * <ul>
 *   <li>{@code filtered}: every subscription on one subject with a header filter policy
 *       ({@code {"region":["r3"]}}); each message is examined by every subscription, a tenth
 *       take it.</li>
 *   <li>{@code unfiltered}: the same subscriptions without a filter; each takes every message
 *       (the cost of examining a message is then a delivery).</li>
 *   <li>{@code subject}: the NATS way, the attribute in the subject ({@code orders.r3}); the
 *       subject index routes each message to the tenth that wants it, and nobody examines the
 *       rest.</li>
 * </ul>
 *
 * One operation is one publish. A filtered subscriber's cost per message examined is
 * {@code filtered} against {@code unfiltered} at equal subscribers (the goal: at most 1.5x).
 * Run with {@code -prof gc}: filter evaluation on headers allocates nothing.
 *
 * <pre>
 * java -jar ringbus-bench/target/ringbus-bench.jar jmh FilteredRoutingBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FilteredRoutingBenchmark {
    private static final int VALUES = 10;
    private static final Object PAYLOAD = PublishBenchmark.PAYLOAD;

    /** Subscriptions, each wanting a tenth of the messages. */
    @Param({"1", "10", "100", "1000"})
    public int subscribers;

    /** {@code filtered}, {@code unfiltered} or {@code subject}. */
    @Param({"filtered", "unfiltered", "subject"})
    public String routing;

    private Broker broker;
    private PublishBenchmark.Counter counter;
    private String[] subjects;
    private Headers[] headers;
    private int next;

    /** Creates the state; JMH instantiates it once per trial. */
    public FilteredRoutingBenchmark() {
    }

    /** Starts the broker and subscribes. */
    @Setup(Level.Trial)
    public void start() {
        broker = Broker.builder().name("jmh-routing").ringSize(16_384).eventLoops(1)
                .waitStrategy(WaitStrategy.YIELDING).build();
        counter = new PublishBenchmark.Counter();
        subjects = new String[VALUES];
        headers = new Headers[VALUES];
        for (int v = 0; v < VALUES; v++) {
            headers[v] = Headers.of("region", "r" + v);
            subjects[v] = routing.equals("subject") ? "orders.r" + v : "orders";
        }
        SubscribeOptions plain = SubscribeOptions.defaults().mode(ExecutionMode.EVENT_LOOP);
        for (int i = 0; i < subscribers; i++) {
            int v = i % VALUES;
            switch (routing) {
                case "filtered" -> broker.subscribe("orders", counter,
                        plain.filter(MessageFilter.headers("{\"region\":[\"r" + v + "\"]}")));
                case "unfiltered" -> broker.subscribe("orders", counter, plain);
                case "subject" -> broker.subscribe("orders.r" + v, counter, plain);
                default -> throw new IllegalArgumentException("routing must be filtered, unfiltered or subject: routing="
                        + routing);
            }
        }
    }

    /** Drains and stops the broker; checks that deliveries happened. */
    @TearDown(Level.Trial)
    public void stop() {
        broker.close();
        if (counter.count == 0) {
            throw new IllegalStateException("no delivery: routing=" + routing + ", subscribers=" + subscribers);
        }
    }

    /** One publish of a message with the next region value. */
    @Benchmark
    @Threads(1)
    public void publish() {
        int v = next;
        next = v == VALUES - 1 ? 0 : v + 1;
        broker.publish(subjects[v], null, headers[v], PAYLOAD);
    }
}
