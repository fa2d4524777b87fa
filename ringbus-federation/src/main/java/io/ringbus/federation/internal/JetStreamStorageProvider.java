package io.ringbus.federation.internal;

import io.ringbus.core.Storage;
import io.ringbus.core.spi.StorageProvider;
import io.ringbus.federation.JetStreamStorage;

/**
 * {@link JetStreamStorage} for a launcher that finds it with {@link java.util.ServiceLoader}
 * (ringbus-server's {@code --storage-jetstream}): kind {@value StorageProvider#JETSTREAM}.
 */
public final class JetStreamStorageProvider implements StorageProvider {
    /** The provider {@link java.util.ServiceLoader} instantiates. */
    public JetStreamStorageProvider() {
        // stateless
    }

    @Override
    public String kind() {
        return JETSTREAM;
    }

    @Override
    public Storage open(String servers, String connectionName) {
        return JetStreamStorage.builder().servers(servers).connectionName(connectionName).connect();
    }
}
