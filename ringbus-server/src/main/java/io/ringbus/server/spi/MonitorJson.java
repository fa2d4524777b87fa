package io.ringbus.server.spi;

import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;

/**
 * Writes one JSON value (an extension's monitoring answer, or its section of {@code /varz}) into
 * the monitor's document. The generator is the monitor's: compact, escaped as the monitor escapes
 * ({@code <} and U+2028/U+2029 too), and bounded like every monitoring response (a thirty-second
 * of the heap, at least 1 MiB): past the bound a write throws {@link IllegalArgumentException}
 * and the request is answered {@code 400}, naming the bound. Closing it does nothing.
 *
 * <p>Called on the monitor's one event loop, which serves every monitoring client: it must only
 * write what is at hand or quick to read, never wait on another thread.
 */
@FunctionalInterface
public interface MonitorJson {
    /**
     * @param json where to write exactly one value (an object, typically)
     * @throws IOException when the generator fails
     */
    void write(JsonGenerator json) throws IOException;
}
