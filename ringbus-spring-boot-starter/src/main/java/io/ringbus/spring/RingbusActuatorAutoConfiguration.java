package io.ringbus.spring;

import io.ringbus.core.Broker;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code ringbus} health indicator (with spring-boot-health on the classpath; off with
 * {@code management.health.ringbus.enabled=false}) and info contributor (with
 * spring-boot-actuator on the classpath).
 */
@AutoConfiguration(after = {RingbusAutoConfiguration.class, RingbusServerAutoConfiguration.class})
@ConditionalOnBean(Broker.class)
public class RingbusActuatorAutoConfiguration {

    /** Creates the auto-configuration (Spring does). */
    public RingbusActuatorAutoConfiguration() {
    }

    /** The health indicator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("ringbus")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "ringbusHealthIndicator")
        RingbusHealthIndicator ringbusHealthIndicator(Broker broker, ObjectProvider<EmbeddedRingbusServer> server) {
            return new RingbusHealthIndicator(broker, server::getIfAvailable);
        }
    }

    /** The info contributor. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(InfoContributor.class)
    static class Info {

        @Bean
        @ConditionalOnMissingBean(name = "ringbusInfoContributor")
        RingbusInfoContributor ringbusInfoContributor(Broker broker, RingbusProperties properties,
                                                      ObjectProvider<EmbeddedRingbusServer> server) {
            return new RingbusInfoContributor(broker, properties, server::getIfAvailable);
        }
    }
}
