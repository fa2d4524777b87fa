/**
 * Plug-ins a launcher finds at run time with {@link java.util.ServiceLoader}, so that it does not
 * compile against them: the federation link ({@link io.ringbus.core.spi.FederationProvider}) and
 * stores kept by another service ({@link io.ringbus.core.spi.StorageProvider}).
 *
 * <p>ringbus-server's command line ({@code --federation}, {@code --storage-jetstream}) uses them;
 * ringbus-federation provides both, so the server module itself does not depend on jnats. An
 * application that builds its broker in code sets {@code NatsFederation} or
 * {@code JetStreamStorage} directly and needs none of this.
 */
package io.ringbus.core.spi;
