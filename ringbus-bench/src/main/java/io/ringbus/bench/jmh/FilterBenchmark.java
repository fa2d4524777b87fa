package io.ringbus.bench.jmh;

import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.MessageFilter;
import io.ringbus.core.wire.NatsHeaderBlock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The cost of one {@link MessageFilter#test} call, as a subscription pays it per routed message:
 * a typical header policy on a message it matches and on one it rejects (on the region, so the
 * numeric key is not reached, and on the amount), the same policy on headers received as a NATS
 * block (read in place), a body policy on a {@code byte[]} JSON payload, and a plain predicate for
 * scale. Run with {@code -prof gc}: {@code gc.alloc.rate.norm} is
 * about 0 B/op for the header policies and the predicate; the body policy reads the JSON and
 * allocates.
 *
 * <pre>
 * java -jar ringbus-bench/target/ringbus-bench.jar jmh FilterBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FilterBenchmark {
    private static final String HEADER_POLICY = "{\"region\":[\"eu\"],\"amount\":[{\"numeric\":[\">\",100]}]}";
    private static final String BODY_POLICY = "{\"region\":[\"eu\"],\"order\":{\"total\":[{\"numeric\":[\">\",100]}]}}";

    private final MessageFilter headerPolicy = MessageFilter.headers(HEADER_POLICY);
    private final MessageFilter bodyPolicy = MessageFilter.body(BODY_POLICY);
    private final MessageFilter predicate = MessageFilter.of(m -> "eu".equals(m.headers().first("region")));

    private final Message matching = Message.of("orders.created", null,
            Headers.of("region", "eu", "amount", "250.75", "trace", "4bf92f3577b34da6"), null);
    private final Message otherRegion = Message.of("orders.created", null,
            Headers.of("region", "us", "amount", "250.75", "trace", "4bf92f3577b34da6"), null);
    private final Message smallAmount = Message.of("orders.created", null,
            Headers.of("region", "eu", "amount", "99.5", "trace", "4bf92f3577b34da6"), null);
    private final Message natsBlock = Message.of("orders.created", null, NatsHeaderBlock.wrap(
            "NATS/1.0\r\nregion: eu\r\namount: 250.75\r\ntrace: 4bf92f3577b34da6\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)), null);
    private final Message jsonBody = Message.of("orders.created", null, null, ("{\"id\":\"o-1842\",\"region\":\"eu\","
            + "\"customer\":{\"id\":\"c-77\",\"tier\":\"gold\"},\"order\":{\"total\":250.75,\"currency\":\"EUR\","
            + "\"lines\":[{\"sku\":\"A-1\",\"qty\":2},{\"sku\":\"B-7\",\"qty\":1}]}}").getBytes(StandardCharsets.UTF_8));

    /** Creates the state; JMH instantiates it once per trial. */
    public FilterBenchmark() {
    }

    /**
     * @return {@code true}: both keys match
     */
    @Benchmark
    public boolean headerPolicyMatching() {
        return headerPolicy.test(matching);
    }

    /**
     * @return {@code false}: the first key fails
     */
    @Benchmark
    public boolean headerPolicyOtherRegion() {
        return headerPolicy.test(otherRegion);
    }

    /**
     * @return {@code false}: the numeric key fails
     */
    @Benchmark
    public boolean headerPolicySmallAmount() {
        return headerPolicy.test(smallAmount);
    }

    /**
     * @return {@code true}: both keys match, read from the NATS block in place
     */
    @Benchmark
    public boolean headerPolicyOnNatsBlock() {
        return headerPolicy.test(natsBlock);
    }

    /**
     * @return {@code true}: the body matches
     */
    @Benchmark
    public boolean bodyPolicyOnJsonBytes() {
        return bodyPolicy.test(jsonBody);
    }

    /**
     * @return {@code true}: the predicate matches
     */
    @Benchmark
    public boolean predicate() {
        return predicate.test(matching);
    }
}
