package io.ringbus.server.internal;

import io.ringbus.core.spi.FederationProvider;
import io.ringbus.core.spi.StorageProvider;

import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The plug-ins the standalone server finds at run time with {@link ServiceLoader}, on the class
 * path or the module path: the federation link and the JetStream store, both in ringbus-federation.
 * The server module does not depend on that module (nor on jnats), so an embedder does not get it;
 * the runnable jar ({@code bin/run}) carries it.
 *
 * <p>Threading: static methods without state; called while the server starts.
 */
public final class RuntimePlugins {
    /** The module that provides both, as the error names it. */
    public static final String FEDERATION_MODULE = "ringbus-federation (module io.ringbus.federation)";

    private RuntimePlugins() {
    }

    /** @return the federation link's provider, if its module is there */
    public static Optional<FederationProvider> federation() {
        return ServiceLoader.load(FederationProvider.class).findFirst();
    }

    /**
     * @param kind what the store is kept in ({@link StorageProvider#JETSTREAM})
     * @return the provider of that kind of store, if its module is there
     */
    public static Optional<StorageProvider> storage(String kind) {
        for (StorageProvider provider : ServiceLoader.load(StorageProvider.class)) {
            if (provider.kind().equals(kind)) {
                return Optional.of(provider);
            }
        }
        return Optional.empty();
    }

    /**
     * @param option the option or configuration key that asked for the plug-in
     * @param what   what it would have given, e.g. {@code "the federation link"}
     * @return the error that names the option and the module missing from the class or module path
     */
    public static IllegalArgumentException missing(String option, String what) {
        return new IllegalArgumentException(option + " needs " + what + " from " + FEDERATION_MODULE
                + ", which is not on the class or module path: add the ringbus-federation jar (it brings jnats), "
                + "or run the server's runnable jar (bin/run), which has it");
    }
}
