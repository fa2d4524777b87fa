/**
 * ringbus-jetstream: JetStream's API (streams) served by ringbus-server on the embedded log.
 *
 * <p>{@code io.ringbus.jetstream} (the extension and its settings) is the API; everything under
 * {@code io.ringbus.jetstream.internal} is implementation. The server finds the extension with
 * {@link java.util.ServiceLoader}; see docs/jetstream.md.
 */
module io.ringbus.jetstream {
    requires transitive io.ringbus.server;
    requires io.ringbus.core;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports io.ringbus.jetstream;

    provides io.ringbus.server.spi.ServerExtension with io.ringbus.jetstream.JetStreamExtension;
}
