package io.ringbus.core;

import com.lmax.disruptor.RingBuffer;
import io.micrometer.core.instrument.MeterRegistry;
import io.ringbus.core.isolated.NoRegistryDriver;
import io.ringbus.core.isolated.RegistryDriver;
import org.jctools.queues.MpmcArrayQueue;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * micrometer-core is optional: a broker built without a registry runs with Micrometer absent from
 * the class path and loads none of the metering classes.
 *
 * <p>How: the drivers run in a fresh class loader whose parent is the boot loader (so nothing
 * comes from the test's own module or class path) and whose URLs are the locations of ringbus-core, its
 * three required libraries and the test classes, found through their classes' code sources.
 * Micrometer's jars are added only for the positive control. {@code findLoadedClass} then tells
 * exactly which classes that loader defined; with no Micrometer URL, any attempt to link a
 * Micrometer class would have failed the run with {@code NoClassDefFoundError}.
 */
class MicrometerOptionalTest {
    private static final String BROKER_METERS = "io.ringbus.core.internal.BrokerMeters";
    private static final String PATTERN_METERS = "io.ringbus.core.internal.PatternMeters";

    /** A loader that can say which classes it defined. */
    private static final class IsolatedLoader extends URLClassLoader {
        IsolatedLoader(List<URL> urls) {
            // Parent: the boot loader. The platform loader would hand the packages of the test's own
            // module layer (the tests run on the module path) to the application loader.
            super("isolated", urls.toArray(new URL[0]), null);
        }

        boolean defined(String name) {
            return findLoadedClass(name) != null;
        }

        void run(Class<? extends Runnable> driver) throws ReflectiveOperationException {
            Class<?> isolated = loadClass(driver.getName());
            assertThat(isolated.getClassLoader()).isSameAs(this);
            ((Runnable) isolated.getDeclaredConstructor().newInstance()).run();
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    private static List<URL> coreWithoutMicrometer() throws ClassNotFoundException {
        List<URL> urls = new ArrayList<>();
        // The test's logging provider, only to keep SLF4J from warning that it has none.
        urls.add(location(Class.forName("org.slf4j.simple.SimpleServiceProvider")));
        urls.add(location(Broker.class));
        urls.add(location(RingBuffer.class));
        urls.add(location(MpmcArrayQueue.class));
        urls.add(location(Logger.class));
        urls.add(location(NoRegistryDriver.class));
        return urls;
    }

    @Test
    void brokerWithoutRegistryRunsWithoutMicrometerAndLoadsNoMeterClass() throws Exception {
        try (IsolatedLoader loader = new IsolatedLoader(coreWithoutMicrometer())) {
            assertThatThrownBy(() -> loader.loadClass(MeterRegistry.class.getName()))
                    .as("Micrometer is not reachable from this loader")
                    .isInstanceOf(ClassNotFoundException.class);

            loader.run(NoRegistryDriver.class);

            assertThat(loader.defined("io.ringbus.core.internal.RingBroker")).as("the broker ran here").isTrue();
            assertThat(loader.defined(BROKER_METERS)).isFalse();
            assertThat(loader.defined(PATTERN_METERS)).isFalse();
        }
    }

    @Test
    void brokerWithRegistryLoadsTheMeterClasses() throws Exception {
        List<URL> urls = coreWithoutMicrometer();
        urls.add(location(MeterRegistry.class));
        urls.add(location(io.micrometer.common.KeyValue.class));
        urls.add(location(io.micrometer.observation.Observation.class));
        urls.add(location(org.HdrHistogram.Histogram.class));
        try (IsolatedLoader loader = new IsolatedLoader(urls)) {
            loader.run(RegistryDriver.class);

            assertThat(loader.defined(BROKER_METERS)).as("the check can see a loaded meter class").isTrue();
            assertThat(loader.defined(PATTERN_METERS)).isTrue();
        }
    }
}
