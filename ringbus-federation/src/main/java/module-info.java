/**
 * ringbus-federation: durable subjects stored in a NATS JetStream cluster
 * ({@link io.ringbus.federation.JetStreamStorage}, a {@link io.ringbus.core.Storage}) and the federation link
 * ({@link io.ringbus.federation.NatsFederation}), both also provided to launchers through
 * {@code io.ringbus.core.spi}.
 *
 * <p>{@code io.ringbus.federation} is the API; everything under {@code io.ringbus.federation.internal}
 * is implementation and may change without notice. Another module that imports it does not compile.
 */
// jnats has no module descriptor of its own (its Automatic-Module-Name is io.nats.jnats); the API
// takes a jnats Connection, hence the transitive requirement.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.ringbus.federation {
    requires transitive io.ringbus.core;
    requires transitive io.nats.jnats;
    requires org.slf4j;

    exports io.ringbus.federation;

    // ringbus-server's --federation and --storage-jetstream find these at run time: the server
    // does not compile against this module (nor jnats). META-INF/services lists them for the class path.
    provides io.ringbus.core.spi.FederationProvider with io.ringbus.federation.internal.NatsFederationProvider;
    provides io.ringbus.core.spi.StorageProvider with io.ringbus.federation.internal.JetStreamStorageProvider;
}
