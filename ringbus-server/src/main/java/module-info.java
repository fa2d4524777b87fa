/**
 * ringbus-server: the NATS client protocol on Netty in front of a ringbus-core broker.
 *
 * <p>{@code io.ringbus.server} (the server, its builder and options) and {@code io.ringbus.server.monitor}
 * (the monitoring snapshots) are the API; everything under {@code io.ringbus.server.internal} is
 * implementation and may change without notice. {@code io.ringbus.server.spi} is the extension SPI. Another module that imports it does not compile.
 */
// Netty 4.1, micrometer and its Prometheus registry have no module descriptors: their
// Automatic-Module-Names are used. The API takes a MeterRegistry and hands out a
// PrometheusMeterRegistry, hence the transitive micrometer requirements.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.ringbus.server {
    requires transitive io.ringbus.core;
    requires java.naming;
    requires org.bouncycastle.lts.prov;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.http;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    requires transitive com.fasterxml.jackson.core; // the SPI hands extensions the monitor's JsonGenerator
    requires java.management;
    requires jdk.management;
    requires jdk.unsupported; // sun.misc.Signal, by reflection: SIGHUP reloads the TLS files
    requires transitive micrometer.core;
    requires transitive micrometer.registry.prometheus;
    requires org.jctools.core;
    requires org.slf4j;
    requires info.picocli;

    exports io.ringbus.server;
    exports io.ringbus.server.monitor;
    exports io.ringbus.server.spi;

    // Extensions (JetStream's API) found on the module path
    uses io.ringbus.server.spi.ServerExtension;
    // --federation and --storage-jetstream: ringbus-federation plugs them in at run time, so this
    // module does not depend on it, nor on jnats (RuntimePlugins)
    uses io.ringbus.core.spi.FederationProvider;
    uses io.ringbus.core.spi.StorageProvider;

    // picocli fills RingbusServerMain's option fields by reflection
    opens io.ringbus.server to info.picocli;
}
