package io.ringbus.server.spi;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.Storage;

/** What the server gives an extension when it {@link ServerExtension#start starts}. */
public interface ExtensionContext {
    /** @return the broker the server serves */
    Broker broker();

    /** @return the broker's store, or {@code null} when it has none */
    Storage storage();

    /** @return the extension's settings */
    ExtensionSettings settings();

    /** @return the server's meter registry, or {@code null} when it has none */
    MeterRegistry meterRegistry();

    /** @return the server's name (as in INFO) */
    String serverName();

    /** @return the server's id (as in INFO) */
    String serverId();

    /**
     * Routes every PUB and HPUB whose subject starts with {@code subjectPrefix} to {@code handler}
     * instead of subscribers, after the usual publish checks.
     *
     * @param subjectPrefix a prefix such as {@code $JS.API.}; it may not overlap a prefix already registered
     * @param handler       the handler
     * @throws IllegalArgumentException naming the prefix when it is empty or overlaps another
     */
    void handle(String subjectPrefix, RequestHandler handler);
}
