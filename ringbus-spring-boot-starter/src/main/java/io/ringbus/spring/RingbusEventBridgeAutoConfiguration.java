package io.ringbus.spring;

import io.ringbus.core.Broker;
import io.ringbus.spring.internal.ApplicationEventBridge;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Publishes Spring application events whose type is annotated {@link RingbusSubject} to that
 * subject through the {@link RingbusTemplate}. Off with {@code ringbus.events.enabled=false}.
 */
@AutoConfiguration(after = RingbusAutoConfiguration.class)
@ConditionalOnBean(Broker.class)
@ConditionalOnBooleanProperty(name = "ringbus.events.enabled", matchIfMissing = true)
public class RingbusEventBridgeAutoConfiguration {

    /** Creates the auto-configuration (Spring does). */
    public RingbusEventBridgeAutoConfiguration() {
    }

    /**
     * The application listener that bridges {@link RingbusSubject} events.
     *
     * @param template    the template, fetched at the first bridged event
     * @param environment resolves placeholders in the subjects
     * @return the listener
     */
    @Bean
    ApplicationEventBridge ringbusApplicationEventBridge(ObjectProvider<RingbusTemplate> template,
            Environment environment) {
        return new ApplicationEventBridge(template::getObject, environment::resolveRequiredPlaceholders);
    }
}
