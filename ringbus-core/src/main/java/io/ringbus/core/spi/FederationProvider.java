package io.ringbus.core.spi;

import io.ringbus.core.Federation;

/**
 * Makes the federation link from its settings, for a launcher that finds it with
 * {@link java.util.ServiceLoader} rather than compiling against it (ringbus-server's
 * {@code --federation} and {@code federation.*}). ringbus-federation provides one, over NATS.
 *
 * <p>Implementations have a public no-argument constructor and are stateless.
 */
public interface FederationProvider {
    /**
     * Makes a link; it connects only when the broker {@linkplain Federation#start starts} it.
     *
     * @param options the servers and credentials
     * @return a new, unstarted link
     * @throws IllegalArgumentException naming the value when an option is not valid for this link
     */
    Federation federation(FederationOptions options);
}
