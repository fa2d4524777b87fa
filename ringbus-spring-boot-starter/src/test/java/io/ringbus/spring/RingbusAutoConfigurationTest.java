package io.ringbus.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class RingbusAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RingbusAutoConfiguration.class, RingbusServerAutoConfiguration.class));

    @Test
    void defaultsGiveABrokerWithBuilderDefaultsAndATemplate() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(Broker.class).hasSingleBean(RingbusTemplate.class)
                    .hasSingleBean(RingbusListenerErrorHandler.class).doesNotHaveBean(EmbeddedRingbusServer.class);
            Broker broker = context.getBean(Broker.class);
            assertThat(broker.stats().ringSize()).isEqualTo(16_384);
            assertThat(broker.scopeOf("any.subject")).isEqualTo(Scope.PRIVATE);
            assertThat(threadsNamed("ringbus-loop-")).hasSize(1);
        });
    }

    @Test
    void eachPropertyReachesTheBroker() {
        runner.withPropertyValues("ringbus.name=props", "ringbus.ring-size=1024", "ringbus.event-loops=2",
                "ringbus.worker-pool-size=3", "ringbus.wait-strategy=SLEEPING", "ringbus.default-scope=PUBLIC",
                "ringbus.subjects[orders.>]=PRIVATE", "ringbus.subjects[orders.audit]=ROOT",
                "ringbus.shutdown-timeout=1500ms", "ringbus.max-event-loop-execute-time=3s",
                "ringbus.max-worker-execute-time=PT1M", "ringbus.max-virtual-execute-time=2m",
                "ringbus.watchdog-interval=250ms", "ringbus.max-in-flight-bytes=1048576",
                "ringbus.route-cache-size=128").run(context -> {
                    assertThat(context).hasNotFailed();
                    Broker broker = context.getBean(Broker.class);
                    assertThat(broker.stats().ringSize()).isEqualTo(1024);
                    assertThat(broker.scopeOf("users.created")).isEqualTo(Scope.PUBLIC);
                    assertThat(broker.scopeOf("orders.created")).isEqualTo(Scope.PRIVATE);
                    assertThat(broker.scopeOf("orders.audit")).isEqualTo(Scope.ROOT);
                    assertThat(threadsNamed("props-loop-")).hasSize(2);
                    assertThat(threadsNamed("props-watchdog")).hasSize(1);
                });
    }

    @Test
    void anOutOfRangePropertyFailsTheContextNamingTheValue() {
        runner.withPropertyValues("ringbus.ring-size=1000").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("ringSize=1000"));
        runner.withPropertyValues("ringbus.shutdown-timeout=soon").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("soon"));
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnBroker() {
        runner.withUserConfiguration(OwnBroker.class).withPropertyValues("ringbus.ring-size=1024").run(context -> {
            assertThat(context).hasSingleBean(Broker.class);
            Broker broker = context.getBean(Broker.class);
            assertThat(broker.stats().ringSize()).isEqualTo(64);
            assertThat(context.getBean(RingbusTemplate.class).client()).isSameAs(broker);
        });
    }

    @Test
    void closesTheBrokerWithTheContext() {
        Broker[] broker = new Broker[1];
        runner.run(context -> broker[0] = context.getBean(Broker.class));
        assertThat(broker[0].isClosed()).isTrue();
    }

    @Test
    void bindsTheApplicationsMeterRegistry() {
        runner.withUserConfiguration(Registry.class).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            context.getBean(Broker.class).publish("metered", "x");
            assertThat(registry.getMeters()).anyMatch(m -> m.getId().getName().startsWith("ringbus."));
        });
        runner.withUserConfiguration(Registry.class).withPropertyValues("ringbus.metrics=false").run(context ->
                assertThat(context.getBean(MeterRegistry.class).getMeters())
                        .noneMatch(m -> m.getId().getName().startsWith("ringbus.")));
    }

    @Test
    void customizersAdjustTheBuilderAfterTheProperties() {
        runner.withPropertyValues("ringbus.ring-size=1024")
                .withBean(BrokerBuilderCustomizer.class, () -> b -> b.ringSize(256)).run(context ->
                        assertThat(context.getBean(Broker.class).stats().ringSize()).isEqualTo(256));
    }

    @Test
    void disabledByProperty() {
        runner.withPropertyValues("ringbus.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(Broker.class).doesNotHaveBean(RingbusTemplate.class));
    }

    @Test
    void publishesConfigurationMetadata() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("metadata written by spring-boot-configuration-processor").isNotNull();
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("\"ringbus.ring-size\"", "\"ringbus.wait-strategy\"", "\"ringbus.subjects\"",
                    "\"ringbus.shutdown-timeout\"", "\"ringbus.server.port\"", "\"ringbus.server.tokens\"", "\"ringbus.inbox.retention\"",
                    "Ring slots, a power of two");
        }
    }

    static Set<String> threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith(prefix)).collect(Collectors.toSet());
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBroker {
        @Bean
        Broker myBroker() {
            return Broker.builder().name("own").ringSize(64).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Registry {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}
