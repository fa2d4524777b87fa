package io.ringbus.server.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.ringbus.core.Broker;
import io.ringbus.core.Storage;
import io.ringbus.server.spi.ExtensionContext;
import io.ringbus.server.spi.ExtensionSettings;
import io.ringbus.server.spi.DashboardCard;
import io.ringbus.server.spi.MonitorEndpoint;
import io.ringbus.server.spi.RequestHandler;
import io.ringbus.server.spi.VarzSection;

import java.util.function.Supplier;

/**
 * What one extension gets from the server it runs in.
 *
 * @param server        the server's shared state
 * @param settings      the extension's settings
 * @param meterRegistry the server's registry, or null
 */
public record ServerExtensionContext(ServerContext server, ExtensionSettings settings, MeterRegistry meterRegistry)
        implements ExtensionContext {
    @Override
    public Broker broker() {
        return server.broker;
    }

    @Override
    public Storage storage() {
        return server.broker.storage().orElse(null);
    }

    @Override
    public String serverName() {
        return server.config.serverName();
    }

    @Override
    public String serverId() {
        return server.serverId;
    }

    @Override
    public void handle(String subjectPrefix, RequestHandler handler) {
        server.extensions.register(subjectPrefix, handler);
    }

    @Override
    public void monitor(String path, MonitorEndpoint endpoint) {
        server.monitorExtensions.monitor(path, endpoint);
    }

    @Override
    public void varz(String field, VarzSection section) {
        server.monitorExtensions.varz(field, section);
    }

    @Override
    public void dashboard(Supplier<DashboardCard> card) {
        server.monitorExtensions.dashboard(card);
    }
}
