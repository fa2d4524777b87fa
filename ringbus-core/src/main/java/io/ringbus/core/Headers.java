package io.ringbus.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Immutable, ordered, case-sensitive multi-map of message headers (as in NATS headers).
 * Names must be non-empty and contain no whitespace or ':'; values must not contain CR or LF.
 */
public final class Headers {
    /** No headers. */
    public static final Headers EMPTY = new Headers(Map.of());

    private final Map<String, List<String>> values;

    private Headers(Map<String, List<String>> values) {
        this.values = values;
    }

    /**
     * Creates headers from name/value pairs.
     *
     * @param namesAndValues name, value, name, value, ...
     * @return the headers
     * @throws IllegalArgumentException for an odd count or an invalid name or value
     */
    public static Headers of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("headers need name/value pairs: got " + namesAndValues.length + " strings");
        }
        Builder builder = builder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            builder.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return builder.build();
    }

    /** @return a new, empty builder */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param name a header name
     * @return the first value of {@code name}, or {@code null}
     */
    public String first(String name) {
        List<String> list = values.get(name);
        return list == null ? null : list.get(0);
    }

    /**
     * @param name a header name
     * @return every value of {@code name} in insertion order; empty when absent
     */
    public List<String> all(String name) {
        return values.getOrDefault(name, List.of());
    }

    /** @return the header names in insertion order */
    public Set<String> names() {
        return values.keySet();
    }

    /** @return {@code true} when there is no header */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Headers h && h.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.toString();
    }

    /** Collects headers; not thread-safe. */
    public static final class Builder {
        private final Map<String, List<String>> values = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * Adds a value to a header.
         *
         * @param name  the header name
         * @param value the value
         * @return this builder
         * @throws IllegalArgumentException naming the bad name or value
         */
        public Builder add(String name, String value) {
            checkName(name);
            if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("header value must be non-null without CR/LF: " + name + "=" + value);
            }
            values.computeIfAbsent(name, n -> new ArrayList<>(1)).add(value);
            return this;
        }

        /** @return the immutable headers */
        public Headers build() {
            if (values.isEmpty()) {
                return EMPTY;
            }
            Map<String, List<String>> copy = new LinkedHashMap<>();
            values.forEach((name, list) -> copy.put(name, List.copyOf(list)));
            return new Headers(Collections.unmodifiableMap(copy));
        }

        private static void checkName(String name) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("header name must be non-empty: name=" + name);
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (c <= ' ' || c == ':' || c == 127) {
                    throw new IllegalArgumentException("header name has a space, control character or ':': name=" + name);
                }
            }
        }
    }
}
