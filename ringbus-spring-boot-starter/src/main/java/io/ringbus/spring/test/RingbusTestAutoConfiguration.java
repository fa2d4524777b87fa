package io.ringbus.spring.test;

import io.ringbus.core.Broker;
import io.ringbus.spring.RingbusAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The test beans of {@link RingbusTest} and {@link AutoConfigureRingbus}: a
 * {@link RingbusTestMessages} on the application's broker. Listed only in
 * {@code META-INF/spring/io.ringbus.spring.test.AutoConfigureRingbus.imports}, so an application
 * never gets it outside its tests.
 */
@AutoConfiguration(after = RingbusAutoConfiguration.class)
@ConditionalOnBean(Broker.class)
public class RingbusTestAutoConfiguration {

    /** Creates the auto-configuration (Spring does). */
    public RingbusTestAutoConfiguration() {
    }

    /**
     * @param broker the application's broker
     * @return the message recorder factory the tests autowire
     */
    @Bean
    @ConditionalOnMissingBean
    public RingbusTestMessages ringbusTestMessages(Broker broker) {
        return new RingbusTestMessages(broker);
    }
}
