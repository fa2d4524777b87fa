package io.ringbus.server.internal.monitor;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.ringbus.core.Scope;
import io.ringbus.server.spi.MonitorQuery;

import java.util.Set;

/** A monitoring request as {@link MonitorQuery}: its path, the viewer and the parameters, read as nats-server reads them. */
final class ParsedQuery implements MonitorQuery {
    /** What Go's {@code strconv.ParseBool} reads as true. */
    private static final Set<String> TRUE = Set.of("1", "t", "T", "TRUE", "true", "True");
    /** What Go's {@code strconv.ParseBool} reads as false. */
    private static final Set<String> FALSE = Set.of("0", "f", "F", "FALSE", "false", "False");

    private final String path;
    private final QueryStringDecoder query;
    private final Scope viewer;

    ParsedQuery(String path, QueryStringDecoder query, Scope viewer) {
        this.path = path;
        this.query = query;
        this.viewer = viewer;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public Scope viewer() {
        return viewer;
    }

    @Override
    public String string(String name) {
        return Query.string(query, name, null);
    }

    @Override
    public boolean flag(String name) {
        String value = Query.string(query, name, "");
        if (value.isEmpty() || FALSE.contains(value)) {
            return false;
        }
        if (TRUE.contains(value)) {
            return true;
        }
        throw new IllegalArgumentException("invalid " + name + ": must be a boolean (1, t, true, 0, f, false): "
                + name + "=" + value);
    }

    @Override
    public int integer(String name, int absent) {
        return Query.integer(query, name, absent);
    }
}
