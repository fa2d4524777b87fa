package io.ringbus.server.spi;

/**
 * A service the server runs beside the NATS protocol (for example JetStream's API). Found with
 * {@link java.util.ServiceLoader} by the standalone server, or added by an embedder with
 * {@link io.ringbus.server.ServerConfig.Builder#extension}.
 *
 * <p>Life cycle: {@link #needsStorage} may be asked before the server opens its store; then
 * {@link #start} once, before the server accepts connections; {@link #close} once, after the
 * connections are closed. Both run on the thread that starts or closes the server.
 */
public interface ServerExtension extends AutoCloseable {
    /**
     * @return the extension's name, also the namespace of its settings ({@code <name>.<key>} in the
     *         configuration file): lower-case letters, digits and {@code -}
     */
    String name();

    /**
     * @return the keys of its settings, without its namespace ({@code max_streams} for
     *         {@code jetstream.max_streams}), for the configuration reference; empty by default
     */
    default java.util.List<ConfigKey> configKeys() {
        return java.util.List.of();
    }

    /**
     * @param settings its settings
     * @return whether, so configured, it needs the server's local store opened even when no
     *         subject is durable (the standalone server opens it then)
     */
    default boolean needsStorage(ExtensionSettings settings) {
        return false;
    }

    /**
     * Starts the extension: checks its settings and registers its handlers.
     *
     * @param context the server's broker, store, settings and handler registry
     * @throws IllegalArgumentException naming the setting when one is not valid (the server does not start)
     */
    void start(ExtensionContext context);

    /** Stops the extension: no handler is called after it returns. Must not throw. */
    @Override
    void close();
}
