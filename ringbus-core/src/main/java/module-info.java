/**
 * ringbus-core: the in-process event broker.
 *
 * <p>{@code io.ringbus.core} is the API and {@code io.ringbus.core.spi} the plug-ins a launcher finds
 * at run time; everything under {@code io.ringbus.core.internal} is implementation and may change
 * without notice. {@code io.ringbus.core.wire} (the NATS wire codec: header blocks, header names,
 * PubAck JSON) and {@code io.ringbus.core.memory} (byte budgets) are exported to the ringbus modules
 * alone.
 */
// micrometer-core 1.16 has no module descriptor: its Automatic-Module-Name is micrometer.core.
// The qualified exports name modules built after this one: javac cannot find them here ("module").
@SuppressWarnings({"requires-automatic", "module"})
module io.ringbus.core {
    requires com.lmax.disruptor;
    requires org.jctools.core;
    requires org.slf4j;
    // The streaming JSON parser: MessageFilter's policies and JSON bodies (docs/routing.md).
    requires com.fasterxml.jackson.core;
    // Optional (Maven <optional>): needed only by a broker built with a meter registry.
    requires static micrometer.core;
    // The machine's memory: the default limit of memory streams (nats-server's max_memory_store).
    requires jdk.management;

    exports io.ringbus.core;
    // Plug-ins a launcher finds with ServiceLoader (ringbus-server's --federation): see the package
    exports io.ringbus.core.spi;
    exports io.ringbus.core.wire to io.ringbus.server, io.ringbus.federation, io.ringbus.jetstream;
    exports io.ringbus.core.memory to io.ringbus.server, io.ringbus.federation, io.ringbus.jetstream;
}
