package io.ringbus.server.spi;

import com.fasterxml.jackson.core.JsonGenerator;
import io.ringbus.core.Scope;

import java.io.IOException;

/**
 * An extension's object in {@code /varz} ({@link ExtensionContext#varz}), such as JetStream's
 * {@code "jetstream": {"config": ..., "stats": ...}}. Called on the monitor's one event loop for
 * every {@code /varz}: it must be quick and never wait on another thread. It writes into a
 * document of its own, bounded like every monitoring response; when it throws, the server writes
 * {@code {}} in its place (and logs it), and the rest of {@code /varz} is answered.
 */
@FunctionalInterface
public interface VarzSection {
    /**
     * @param json   where to write exactly one value (an object)
     * @param viewer the scope of the credential that asks ({@link Scope#ROOT} without credentials):
     *               what only ROOT may see (a directory, for one) is left out for others
     * @throws IOException when the generator fails
     */
    void write(JsonGenerator json, Scope viewer) throws IOException;
}
