/**
 * The server's extension SPI: a service built on the bus (JetStream's API, for one) that answers
 * requests on its own subjects without living in the connection handler.
 *
 * <p>A {@link io.ringbus.server.spi.ServerExtension} is found by {@link java.util.ServiceLoader}
 * (the standalone server) or given to {@link io.ringbus.server.ServerConfig.Builder#extension}
 * (an embedder). When the server starts it calls {@code start} with an
 * {@link io.ringbus.server.spi.ExtensionContext}, where the extension registers
 * {@link io.ringbus.server.spi.RequestHandler}s for subject prefixes. A PUB or HPUB to such a
 * subject is checked as any publish (scope, permissions, the reply subject's permission), never
 * routed, and handed to the handler as an {@link io.ringbus.server.spi.ApiRequest}; see
 * docs/server.md.
 *
 * <p>An extension may also add to the monitoring port: a path ({@link
 * io.ringbus.server.spi.MonitorEndpoint}, such as JetStream's {@code /jsz}), an object of
 * {@code /varz} ({@link io.ringbus.server.spi.VarzSection}) and dashboard tables ({@link
 * io.ringbus.server.spi.DashboardCard}), bounded and scoped like the monitor's own answers.
 */
package io.ringbus.server.spi;
