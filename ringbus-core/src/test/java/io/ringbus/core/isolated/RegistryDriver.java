package io.ringbus.core.isolated;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringbus.core.Broker;

/** The same traffic as {@link NoRegistryDriver}, with a registry: the positive control. */
public final class RegistryDriver implements Runnable {
    @Override
    public void run() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Broker broker = Broker.builder().name("isolated").ringSize(256).meterRegistry(registry).build()) {
            NoRegistryDriver.exercise(broker);
            double delivered = registry.get("ringbus.delivered").functionCounters().stream()
                    .mapToDouble(counter -> counter.count()).sum();
            if (delivered != 200) {
                throw new IllegalStateException("expected ringbus.delivered 200: " + delivered);
            }
        }
    }
}
