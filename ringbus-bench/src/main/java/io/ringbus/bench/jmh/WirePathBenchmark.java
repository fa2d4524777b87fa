package io.ringbus.bench.jmh;

import io.ringbus.server.internal.LoopbackPipeline;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * ringbus-server's wire path, socket to socket without the sockets: a read of {@value #BATCH}
 * PUBs fed to a publishing connection's real pipeline, parsed, routed through the broker to
 * {@code subscribers} network subscriptions and encoded into their output, which is taken and
 * released ({@link LoopbackPipeline}, on Netty's EmbeddedChannel, one thread). One operation is
 * one PUB. With {@code -prof gc}, {@code gc.alloc.rate.norm} is about 0 B/op: the payload is
 * copied once, from the publisher's input into each subscriber's output, with no message object.
 *
 * <pre>
 * java -jar ringbus-bench/target/ringbus-bench.jar jmh WirePathBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class WirePathBenchmark {
    /** PUBs per read of the publisher's socket. */
    static final int BATCH = 32;

    /** Network subscriptions of the subject, one per connection. */
    @Param({"1", "4"})
    public int subscribers;

    /** Each PUB's payload. */
    @Param({"16", "1024"})
    public int payloadBytes;

    private LoopbackPipeline pipeline;

    /** Starts the broker and the connections. */
    @Setup(Level.Trial)
    public void start() {
        pipeline = new LoopbackPipeline(subscribers, payloadBytes, BATCH);
    }

    /** Closes the connections and the broker. */
    @TearDown(Level.Trial)
    public void stop() {
        pipeline.close();
    }

    /** @return the PUBs of one read, each delivered to every subscriber */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int pubToSubscribers() {
        return pipeline.publish();
    }
}
