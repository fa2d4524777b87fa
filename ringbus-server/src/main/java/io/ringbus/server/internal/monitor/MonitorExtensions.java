package io.ringbus.server.internal.monitor;

import io.ringbus.server.ServerRequests;
import io.ringbus.server.spi.DashboardCard;
import io.ringbus.server.spi.MonitorEndpoint;
import io.ringbus.server.spi.VarzSection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * What extensions add to the monitor ({@link io.ringbus.server.spi.ExtensionContext#monitor},
 * {@code varz}, {@code dashboard}): paths, {@code /varz} objects and dashboard cards.
 *
 * <p>Thread-safe: registered under a lock while the server starts, copied on write; the monitor's
 * loop reads the current copies.
 */
public final class MonitorExtensions {
    /** The paths nats-server serves that the server answers only until an extension serves them. */
    static final Set<String> REPLACEABLE_PATHS = Set.of("/jsz");
    /** The objects of {@code /varz} that nats-server has and the server leaves empty ({@code {}}), in its order. */
    static final List<String> VARZ_PLACEHOLDERS = List.of("cluster", "gateway", "leaf", "mqtt", "websocket",
            "jetstream");
    private static final Pattern PATH = Pattern.compile("/[a-z][a-z0-9_-]*");

    private final ReentrantLock lock = new ReentrantLock();
    private volatile Map<String, MonitorEndpoint> endpoints = Map.of();
    private volatile Map<String, VarzSection> varz = Map.of();
    private volatile List<Supplier<DashboardCard>> cards = List.of();

    /**
     * @throws IllegalArgumentException naming the path when it is not {@code /name}, is the
     *                                  server's own or already served
     */
    public void monitor(String path, MonitorEndpoint endpoint) {
        if (path == null || !PATH.matcher(path).matches() || endpoint == null) {
            throw new IllegalArgumentException("a monitoring path is '/' and a lower-case name ([a-z][a-z0-9_-]*), "
                    + "with an endpoint: path='" + path + "'");
        }
        if (ServerRequests.MONITOR_PATHS.contains(path) && !REPLACEABLE_PATHS.contains(path)) {
            throw new IllegalArgumentException("monitoring path " + path + " is the server's own (an extension may "
                    + "serve " + REPLACEABLE_PATHS + " or a new path)");
        }
        lock.lock();
        try {
            if (endpoints.containsKey(path)) {
                throw new IllegalArgumentException("monitoring path " + path + " is already served by an extension");
            }
            Map<String, MonitorEndpoint> next = new LinkedHashMap<>(endpoints);
            next.put(path, endpoint);
            endpoints = next;
        } finally {
            lock.unlock();
        }
    }

    /** @throws IllegalArgumentException naming the field when it is not a placeholder, or taken */
    public void varz(String field, VarzSection section) {
        if (!VARZ_PLACEHOLDERS.contains(field) || section == null) {
            throw new IllegalArgumentException("an extension fills one of /varz's " + VARZ_PLACEHOLDERS
                    + ", with a section: field='" + field + "'");
        }
        lock.lock();
        try {
            if (varz.containsKey(field)) {
                throw new IllegalArgumentException("/varz field " + field + " is already filled by an extension");
            }
            Map<String, VarzSection> next = new LinkedHashMap<>(varz);
            next.put(field, section);
            varz = next;
        } finally {
            lock.unlock();
        }
    }

    /** Adds a dashboard card. */
    public void dashboard(Supplier<DashboardCard> card) {
        if (card == null) {
            throw new IllegalArgumentException("a dashboard card needs a supplier: card=null");
        }
        lock.lock();
        try {
            List<Supplier<DashboardCard>> next = new ArrayList<>(cards);
            next.add(card);
            cards = List.copyOf(next);
        } finally {
            lock.unlock();
        }
    }

    /** Forgets everything (the extensions closed). */
    public void clear() {
        lock.lock();
        try {
            endpoints = Map.of();
            varz = Map.of();
            cards = List.of();
        } finally {
            lock.unlock();
        }
    }

    /** @return the endpoint serving {@code path}, or {@code null} */
    MonitorEndpoint endpoint(String path) {
        return endpoints.get(path);
    }

    /** @return the paths extensions serve, in the order registered */
    List<String> paths() {
        return List.copyOf(endpoints.keySet());
    }

    /** @return the section filling {@code field}, or {@code null} */
    VarzSection varz(String field) {
        return varz.get(field);
    }

    /** @return the dashboard cards, in the order added */
    List<Supplier<DashboardCard>> cards() {
        return cards;
    }
}
