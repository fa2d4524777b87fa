package io.ringbus.federation.internal;

import io.ringbus.core.Federation;
import io.ringbus.core.spi.FederationOptions;
import io.ringbus.core.spi.FederationProvider;
import io.ringbus.federation.NatsFederation;

/**
 * {@link NatsFederation} for a launcher that finds it with {@link java.util.ServiceLoader}
 * (ringbus-server's {@code --federation}): the options map onto its builder one to one.
 */
public final class NatsFederationProvider implements FederationProvider {
    /** The provider {@link java.util.ServiceLoader} instantiates. */
    public NatsFederationProvider() {
        // stateless
    }

    @Override
    public Federation federation(FederationOptions options) {
        NatsFederation.Builder builder = NatsFederation.builder(options.servers());
        if (options.user() != null) {
            builder.user(options.user(), options.password() != null ? options.password() : "");
        }
        if (options.token() != null) {
            builder.token(options.token());
        }
        if (options.tls() != null) {
            builder.tls(options.tls());
        }
        if (options.reconnectWait() != null) {
            builder.reconnectWait(options.reconnectWait());
        }
        if (options.maxReconnects() != null) {
            builder.maxReconnects(options.maxReconnects());
        }
        return builder.build();
    }
}
