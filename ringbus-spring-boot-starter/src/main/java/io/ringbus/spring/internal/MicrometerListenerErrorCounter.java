package io.ringbus.spring.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Counts listener failures as {@code ringbus.spring.listener.errors}, tagged with the listener's
 * subject pattern. Loaded only when micrometer-core is present.
 */
public final class MicrometerListenerErrorCounter implements Consumer<String> {

    /** The meter's name. */
    public static final String METER = "ringbus.spring.listener.errors";

    private final Supplier<MeterRegistry> registry;

    /** @param registry the application's registry, looked up at each error; {@code null} when none */
    public MicrometerListenerErrorCounter(Supplier<MeterRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public void accept(String pattern) {
        MeterRegistry target = registry.get();
        if (target == null) {
            return;
        }
        Counter.builder(METER).description("@RingbusListener calls that threw")
                .tag("pattern", pattern).register(target).increment();
    }
}
