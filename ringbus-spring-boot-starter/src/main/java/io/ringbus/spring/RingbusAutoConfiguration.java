package io.ringbus.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Durations;
import io.ringbus.core.Scope;
import io.ringbus.spring.internal.BrokerLifecycle;
import io.ringbus.spring.internal.JacksonPayloadConverter;
import io.ringbus.spring.internal.LoggingListenerErrorHandler;
import io.ringbus.spring.internal.MicrometerListenerErrorCounter;
import io.ringbus.spring.internal.PayloadConverter;
import io.ringbus.spring.internal.RingbusListenerRegistrar;
import java.util.Map;
import java.util.function.Consumer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configures a {@link Broker} from the {@code ringbus.*} properties (unless the application
 * defines its own Broker bean), a {@link RingbusTemplate}, the {@link RingbusListener} methods, the
 * default {@link RingbusListenerErrorHandler}, and closes the broker gracefully on shutdown.
 *
 * <p>Shutdown order (SmartLifecycle phases, the highest stops first): the embedded server stops
 * accepting connections ({@link #SERVER_PHASE}); the broker refuses new publishes and drains what
 * it accepted into the listeners, then closes ({@link #BROKER_PHASE}); the listeners unsubscribe
 * ({@link #LISTENER_PHASE}); the server's connections close when its bean is destroyed. Start runs
 * the other way: listeners subscribe before the server accepts clients.
 */
@AutoConfiguration
@ConditionalOnClass(Broker.class)
@ConditionalOnBooleanProperty(name = "ringbus.enabled", matchIfMissing = true)
@EnableConfigurationProperties({RingbusProperties.class, RingbusInboxProperties.class})
public class RingbusAutoConfiguration {

    /** Phase of the embedded server: starts after, stops before, the broker and the listeners. */
    public static final int SERVER_PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;
    /** Phase of the outbox relay: starts after, stops before, the broker (nothing claimed is refused). */
    public static final int RELAY_PHASE = SmartLifecycle.DEFAULT_PHASE - 6144;
    /** Phase in which the broker drains and closes on shutdown. */
    public static final int BROKER_PHASE = SmartLifecycle.DEFAULT_PHASE - 8192;
    /** Phase of the listeners: subscribe first, unsubscribe last (after the broker drained). */
    public static final int LISTENER_PHASE = SmartLifecycle.DEFAULT_PHASE - 12288;

    /** Creates the auto-configuration (Spring does). */
    public RingbusAutoConfiguration() {
    }

    /**
     * The broker, built from the properties and the {@link BrokerBuilderCustomizer} beans, with
     * the subjects of {@code ringbus.subjects} registered.
     *
     * @param properties  the {@code ringbus.*} properties
     * @param customizers applied in order after the properties
     * @return the broker; closed by {@code ringbusBrokerLifecycle} on shutdown
     * @throws IllegalArgumentException naming the value when a property is out of range
     */
    @Bean
    @ConditionalOnMissingBean
    public Broker ringbusBroker(RingbusProperties properties, ObjectProvider<BrokerBuilderCustomizer> customizers) {
        BrokerBuilder builder = Broker.builder();
        apply(properties, builder);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        Broker broker = builder.build();
        try {
            for (Map.Entry<String, Scope> subject : properties.getSubjects().entrySet()) {
                broker.registerSubject(subject.getKey(), subject.getValue());
            }
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    static void apply(RingbusProperties p, BrokerBuilder b) {
        if (p.getName() != null) {
            b.name(p.getName());
        }
        if (p.getRingSize() != null) {
            b.ringSize(p.getRingSize());
        }
        if (p.getWaitStrategy() != null) {
            b.waitStrategy(p.getWaitStrategy());
        }
        if (p.getEventLoops() != null) {
            b.eventLoops(p.getEventLoops());
        }
        if (p.getWorkerPoolSize() != null) {
            b.workerPoolSize(p.getWorkerPoolSize());
        }
        if (p.getDefaultScope() != null) {
            b.defaultScope(p.getDefaultScope());
        }
        if (p.getShutdownTimeout() != null) {
            b.shutdownTimeout(Durations.parse(p.getShutdownTimeout()));
        }
        if (p.getMaxEventLoopExecuteTime() != null) {
            b.maxEventLoopExecuteTime(Durations.parse(p.getMaxEventLoopExecuteTime()));
        }
        if (p.getMaxWorkerExecuteTime() != null) {
            b.maxWorkerExecuteTime(Durations.parse(p.getMaxWorkerExecuteTime()));
        }
        if (p.getMaxVirtualExecuteTime() != null) {
            b.maxVirtualExecuteTime(Durations.parse(p.getMaxVirtualExecuteTime()));
        }
        if (p.getWatchdogInterval() != null) {
            b.watchdogInterval(Durations.parse(p.getWatchdogInterval()));
        }
        if (p.getMaxInFlightBytes() != null) {
            b.maxInFlightBytes(p.getMaxInFlightBytes());
        }
        if (p.getRouteCacheSize() != null) {
            b.routeCacheSize(p.getRouteCacheSize());
        }
    }

    /**
     * Closes the broker (the auto-configured one or the application's) in {@link #BROKER_PHASE}.
     *
     * @param broker the broker
     * @return the lifecycle bean
     */
    @Bean
    BrokerLifecycle ringbusBrokerLifecycle(Broker broker) {
        return new BrokerLifecycle(broker, BROKER_PHASE);
    }

    /**
     * The template, publishing as the broker itself (ROOT scope), and appending the guaranteed
     * subjects to the outbox when {@link RingbusOutboxAutoConfiguration} is active.
     *
     * @param broker the broker
     * @param outbox the guaranteed subjects' publisher, when there is one
     * @return the template
     */
    @Bean
    @ConditionalOnMissingBean
    public RingbusTemplate ringbusTemplate(Broker broker, ObjectProvider<OutboxPublisher> outbox) {
        return new RingbusTemplate(broker, outbox.getIfAvailable());
    }

    /**
     * The default error handler: logs, counts, and increments
     * {@code ringbus.spring.listener.errors} when there is a MeterRegistry.
     *
     * @param counter the meter, when micrometer is present
     * @return the error handler
     */
    @Bean
    @ConditionalOnMissingBean
    RingbusListenerErrorHandler ringbusListenerErrorHandler(
            ObjectProvider<MicrometerListenerErrorCounter> counter) {
        Consumer<String> meter = counter.getIfAvailable();
        return new LoggingListenerErrorHandler(meter);
    }

    /**
     * Payload conversion without JSON: only where an application excluded Jackson 3, a dependency of the starter.
     *
     * @return the converter
     */
    @Bean
    @ConditionalOnMissingBean
    PayloadConverter ringbusPayloadConverter() {
        return new PayloadConverter();
    }

    /**
     * Finds and subscribes the {@link RingbusListener} methods.
     *
     * @param broker       the broker
     * @param errorHandler the error handler
     * @param converter    the payload converter
     * @return the registrar (a bean post-processor and lifecycle)
     */
    @Bean
    static RingbusListenerRegistrar ringbusListenerRegistrar(ObjectProvider<Broker> broker,
            ObjectProvider<RingbusListenerErrorHandler> errorHandler, ObjectProvider<PayloadConverter> converter) {
        return new RingbusListenerRegistrar(broker::getObject, errorHandler::getObject, converter::getObject,
                LISTENER_PHASE);
    }

    /** JSON payload conversion with the application's Jackson 3 mapper (or a default one). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObjectMapper.class)
    static class JacksonConversion {

        @Bean
        @ConditionalOnMissingBean
        PayloadConverter ringbusJsonPayloadConverter(ObjectProvider<ObjectMapper> mapper) {
            return new JacksonPayloadConverter(mapper.getIfAvailable(() -> JsonMapper.builder().build()));
        }
    }

    /** Binds the application's MeterRegistry to the broker, and counts listener errors. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {

        @Bean
        @ConditionalOnBooleanProperty(name = "ringbus.metrics", matchIfMissing = true)
        BrokerBuilderCustomizer ringbusMeterRegistryCustomizer(ObjectProvider<MeterRegistry> registry) {
            return builder -> registry.ifAvailable(builder::meterRegistry);
        }

        @Bean
        MicrometerListenerErrorCounter ringbusListenerErrorCounter(ObjectProvider<MeterRegistry> registry) {
            return new MicrometerListenerErrorCounter(registry::getIfAvailable);
        }
    }
}
