package io.ringbus.bench.blocking;

import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.OverflowPolicy;
import io.ringbus.core.SubscribeOptions;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The seeds' blocking-I/O experiment (outbox relay, virtual threads): {@code messages} messages
 * published at once to a handler that blocks {@code latency} each, handled unordered with a bound
 * on concurrency. Measures the time until the last call returns, against the ideal
 * {@code messages x latency / concurrency}.
 */
public final class BurstScenario {
    private static final String SUBJECT = "blocking.burst";

    private final int messages;

    /**
     * @param messages messages per run, &gt;= 1
     * @throws IllegalArgumentException naming the value when below 1
     */
    public BurstScenario(int messages) {
        if (messages < 1) {
            throw new IllegalArgumentException("messages must be >= 1: messages=" + messages);
        }
        this.messages = messages;
    }

    /**
     * Runs one setup at one latency on a fresh broker.
     *
     * @param setup   where the handler runs and how many at once
     * @param latency how long each call blocks
     * @return the time taken
     * @throws InterruptedException when interrupted
     * @throws IllegalStateException when the run does not finish within 10 x its ideal time + 30 s
     */
    public BurstResult run(BurstSetup setup, Duration latency) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(messages);
        BrokerBuilder builder = Broker.builder().name("burst")
                .maxWorkerExecuteTime(latency.multipliedBy(10).plusSeconds(1))
                .maxVirtualExecuteTime(latency.multipliedBy(10).plusSeconds(1));
        if (setup.mode() == ExecutionMode.WORKER) {
            builder.workerPoolSize(setup.concurrency());
        }
        try (Broker broker = builder.build()) {
            broker.subscribe(SUBJECT, message -> {
                try {
                    Thread.sleep(latency); // stands in for a blocking call to an external system
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                done.countDown();
            }, SubscribeOptions.defaults().mode(setup.mode()).ordered(false).maxConcurrency(setup.concurrency())
                    .bufferSize(Math.max(2, messages)).overflow(OverflowPolicy.BLOCK));
            long start = System.nanoTime();
            for (int i = 0; i < messages; i++) {
                broker.publish(SUBJECT, i);
            }
            long limitMillis = 30_000 + 10 * (long) Math.ceil((double) messages / setup.concurrency()) * latency.toMillis();
            if (!done.await(limitMillis, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(setup.label() + " at " + latency + ": " + done.getCount()
                        + " of " + messages + " messages not handled within " + limitMillis + " ms");
            }
            return new BurstResult(setup, latency, messages, System.nanoTime() - start);
        }
    }
}
