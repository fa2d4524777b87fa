package io.ringbus.spring;

import io.ringbus.core.BrokerBuilder;

/**
 * Adjusts the auto-configured broker's builder after the {@code ringbus.*} properties are
 * applied and before the broker is built: an error handler, a blocked-handler listener, storage,
 * federation. Beans of this type are applied in {@link org.springframework.core.Ordered} order.
 */
@FunctionalInterface
public interface BrokerBuilderCustomizer {

    /**
     * Adjusts the builder.
     *
     * @param builder the builder, with the properties applied
     */
    void customize(BrokerBuilder builder);
}
