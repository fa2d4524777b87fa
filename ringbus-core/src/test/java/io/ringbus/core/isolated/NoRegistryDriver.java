package io.ringbus.core.isolated;

import io.ringbus.core.Broker;
import io.ringbus.core.ExecutionMode;
import io.ringbus.core.SubscribeOptions;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a broker without a meter registry: event-loop and worker deliveries, a drop-free run,
 * stats. Loaded by {@code MicrometerOptionalTest} in a class loader without Micrometer; throws
 * when a count is wrong.
 */
public final class NoRegistryDriver implements Runnable {
    @Override
    public void run() {
        try (Broker broker = Broker.builder().name("isolated").ringSize(256).build()) {
            exercise(broker);
        }
    }

    static void exercise(Broker broker) {
        broker.subscribe("iso.>", message -> { });
        broker.subscribe("iso.>", message -> { }, SubscribeOptions.defaults().mode(ExecutionMode.WORKER));
        for (int i = 0; i < 100; i++) {
            broker.publish("iso.x", i);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (broker.stats().delivered() != 200) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("expected 200 deliveries: " + broker.stats());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
