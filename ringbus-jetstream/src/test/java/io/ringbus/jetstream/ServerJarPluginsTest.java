package io.ringbus.jetstream;

import io.ringbus.core.spi.FederationProvider;
import io.ringbus.core.spi.StorageProvider;
import io.ringbus.server.spi.ServerExtension;
import org.junit.jupiter.api.Test;

import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runnable jar this module builds (bin/run) is its class path: there the server finds, at run
 * time, JetStream's API and ringbus-federation's links ({@code --federation},
 * {@code --storage-jetstream}), which the server module itself does not depend on.
 */
class ServerJarPluginsTest {

    @Test
    void theServerJarsClassPathHasJetStreamAndTheFederationLinks() {
        assertThat(ServiceLoader.load(ServerExtension.class).stream().map(ServiceLoader.Provider::type))
                .contains(JetStreamExtension.class);
        assertThat(ServiceLoader.load(FederationProvider.class).findFirst()).isPresent();
        assertThat(ServiceLoader.load(StorageProvider.class).stream().map(p -> p.get().kind()))
                .contains(StorageProvider.JETSTREAM);
    }
}
