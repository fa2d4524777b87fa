package io.ringbus.core.spi;

import io.ringbus.core.Storage;

/**
 * Opens a {@link Storage} kept by another service (JetStream), for a launcher that finds it with
 * {@link java.util.ServiceLoader} rather than compiling against it (ringbus-server's
 * {@code --storage-jetstream} and {@code storage.jetstream}). The local log needs no provider:
 * {@link Storage#local}. ringbus-federation provides {@value #JETSTREAM}.
 *
 * <p>Implementations have a public no-argument constructor and are stateless.
 */
public interface StorageProvider {
    /** The {@link #kind()} of durable subjects stored in a NATS JetStream cluster. */
    String JETSTREAM = "jetstream";

    /** @return what it stores in, as the launcher's setting names it ({@value #JETSTREAM}) */
    String kind();

    /**
     * Connects to the service.
     *
     * @param servers        the service's URLs, comma-separated
     * @param connectionName how the store's connection is named on the service
     * @return the open store; the broker closes it
     * @throws IllegalArgumentException         naming the value when {@code servers} is not valid
     * @throws io.ringbus.core.StorageException when the service cannot be reached
     */
    Storage open(String servers, String connectionName);
}
