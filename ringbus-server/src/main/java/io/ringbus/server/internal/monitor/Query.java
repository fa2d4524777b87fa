package io.ringbus.server.internal.monitor;

import io.netty.handler.codec.http.QueryStringDecoder;

import java.util.List;

/** Reads the query parameters of a monitoring request, naming the bad one when it fails. */
final class Query {
    /** Largest accepted {@code offset} and {@code limit}. */
    static final int MAX = 1_000_000;

    private Query() {
    }

    static String string(QueryStringDecoder query, String name, String otherwise) {
        List<String> values = query.parameters().get(name);
        return values == null || values.isEmpty() ? otherwise : values.get(0);
    }

    /** {@code 1}, {@code true}, {@code yes}, or a parameter with no value, as nats-server accepts. */
    static boolean flag(String value) {
        return value.equals("1") || value.equalsIgnoreCase("true") || value.equalsIgnoreCase("yes");
    }

    static boolean flag(QueryStringDecoder query, String name) {
        List<String> values = query.parameters().get(name);
        return values != null && (values.isEmpty() || values.get(0).isEmpty() || flag(values.get(0)));
    }

    /** @throws IllegalArgumentException when not an integer in 0..{@link #MAX} */
    static int integer(QueryStringDecoder query, String name, int otherwise) {
        String value = string(query, name, null);
        if (value == null || value.isEmpty()) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= 0 && n <= MAX) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("invalid " + name + ": must be an integer in 0.." + MAX + ": " + name
                + "=" + value);
    }
}
