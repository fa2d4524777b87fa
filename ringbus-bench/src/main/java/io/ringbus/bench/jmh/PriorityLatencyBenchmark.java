package io.ringbus.bench.jmh;

import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.SubscribeOptions;
import io.ringbus.core.Subscription;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How long an urgent message waits behind a backlog: a WORKER subscriber whose handler takes
 * {@code handlingMicros} (busy, as CPU work) has {@code backlog} routine messages buffered; one
 * operation publishes a priority-9 message and waits until the handler has it. The goal is at most
 * one message's handling time (the one in the handler when the urgent one comes); without
 * priorities it would be {@code backlog} handling times. {@code priority=false} publishes the
 * urgent message at the default priority, for the comparison.
 *
 * <pre>
 * java -jar ringbus-bench/target/ringbus-bench.jar jmh PriorityLatencyBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, batchSize = 1)
@Measurement(iterations = 20, batchSize = 1)
public class PriorityLatencyBenchmark {
    private static final Object ROUTINE = new Object();
    private static final Object URGENT = new Object();

    /** Routine messages waiting when the urgent one is published. */
    @Param({"10000"})
    public int backlog;

    /** What one handler call takes. */
    @Param({"20"})
    public int handlingMicros;

    /** Whether the urgent message carries priority 9 ({@code false}: the default, 4). */
    @Param({"true"})
    public boolean priority;

    private Broker broker;
    private Subscription subscription;
    private volatile boolean urgentHandled;
    /** Messages published so far (routine and urgent). */
    private long published;
    private Headers urgentHeaders;

    /** Creates the state; JMH instantiates it once per trial. */
    public PriorityLatencyBenchmark() {
    }

    /** Starts the broker and the busy subscriber. */
    @Setup(Level.Trial)
    public void start() {
        broker = Broker.builder().name("jmh-priority").ringSize(16_384).build();
        long handlingNanos = TimeUnit.MICROSECONDS.toNanos(handlingMicros);
        subscription = broker.subscribe("jobs", message -> {
            if (message.payload() == URGENT) {
                urgentHandled = true;
            }
            long end = System.nanoTime() + handlingNanos;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER).bufferSize(backlog + 1_024));
        urgentHeaders = priority ? Message.priorityHeaders(9) : Headers.EMPTY;
    }

    /** Buffers the backlog before each operation. */
    @Setup(Level.Invocation)
    public void fill() {
        urgentHandled = false;
        for (int i = 0; i < backlog; i++) {
            broker.publish("jobs", ROUTINE);
        }
        published += backlog;
        // Every one routed: in the buffer or handled.
        while (subscription.pending() + subscription.delivered() < published - 1) {
            LockSupport.parkNanos(10_000);
        }
    }

    /** Lets the backlog drain after each operation. */
    @TearDown(Level.Invocation)
    public void drain() {
        while (subscription.pending() > 0) {
            LockSupport.parkNanos(100_000);
        }
    }

    /** Stops the broker. */
    @TearDown(Level.Trial)
    public void stop() {
        broker.close();
    }

    /** Publishes the urgent message and waits until the handler has it. */
    @Benchmark
    public void urgentBehindBacklog() {
        broker.publish("jobs", null, urgentHeaders, URGENT);
        published++;
        while (!urgentHandled) {
            // Yield, not spin: on 2 cores a spinning waiter would take the event loop's core
            // (the handler busy-spins on the other) and measure the OS scheduler instead.
            Thread.yield();
        }
    }
}
