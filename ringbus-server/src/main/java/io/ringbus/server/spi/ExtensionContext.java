package io.ringbus.server.spi;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.Storage;

import java.util.function.Supplier;

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

    /**
     * Serves a monitoring path on the monitor's port (when monitoring is on), behind its credentials
     * and bounds (see {@link MonitorEndpoint}). A path nats-server serves and this server leaves to
     * an extension ({@code /jsz}, which without one answers as a nats-server without JetStream)
     * is replaced.
     *
     * @param path     {@code /} and a lower-case name ({@code [a-z][a-z0-9_-]*}), such as {@code /jsz}
     * @param endpoint what answers it
     * @throws IllegalArgumentException naming the path when it is not such a name, is one of the
     *                                  server's own paths or another extension's
     */
    void monitor(String path, MonitorEndpoint endpoint);

    /**
     * Fills an object of {@code /varz} that nats-server has and this server leaves empty
     * ({@code cluster}, {@code gateway}, {@code leaf}, {@code mqtt}, {@code websocket},
     * {@code jetstream}), such as JetStream's {@code "jetstream"}.
     *
     * @param field   the field's name
     * @param section what writes it
     * @throws IllegalArgumentException naming the field when it is not one of those or is taken
     */
    void varz(String field, VarzSection section);

    /**
     * Adds a table to the dashboard, below the server's own, asked for once per dashboard refresh
     * (every second while a dashboard is open), on the monitor's loop: it must be quick and never
     * wait on another thread. When it throws, the card shows the error.
     *
     * @param card what gives the table now
     */
    void dashboard(Supplier<DashboardCard> card);
}
