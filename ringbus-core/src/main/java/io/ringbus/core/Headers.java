package io.ringbus.core;

import io.ringbus.core.internal.HeadersAccess;
import io.ringbus.core.wire.NatsHeaderBlock;
import io.ringbus.core.wire.NatsHeaderLines;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Immutable, ordered, case-sensitive multi-map of message headers (as in NATS headers).
 * Names must be non-empty and contain no whitespace or ':'; values must not contain CR or LF.
 *
 * <p>Headers that arrived over the NATS protocol keep the block exactly as received
 * ({@link #natsBlock()}: status line, spacing, empty blocks), so that a network front forwards
 * them byte for byte; their names and values are parsed from it on first use, skipping the lines
 * that are not valid headers, as NATS clients do.
 */
public final class Headers {
    /** No headers. */
    public static final Headers EMPTY = new Headers(Map.of(), null);

    static {
        // The wire codec (io.ringbus.core.wire.NatsHeaderBlock) alone makes headers over a NATS block.
        HeadersAccess.install(block -> new Headers(null, block));
    }

    /** Parsed on first use when made from a NATS block (a benign race: every parse gives the same). */
    private volatile Map<String, List<String>> values;
    private final byte[] natsBlock;
    /**
     * What is known of the block without parsing it ({@link #UNREAD}, {@link #NOT_ASCII}, {@link #NO_HEADER},
     * {@link #HAS_HEADER}): a message's headers are asked for on each hop (a delivery, its priority),
     * the block read once. A benign race: every thread finds the same.
     */
    private byte read;
    private static final byte UNREAD = 0;
    private static final byte NOT_ASCII = 1;
    private static final byte NO_HEADER = 2;
    private static final byte HAS_HEADER = 3;

    private Headers(Map<String, List<String>> values, byte[] natsBlock) {
        this.values = values;
        this.natsBlock = natsBlock;
    }

    /**
     * @return the block exactly as received over the NATS protocol, or {@code null} for headers
     *         built in-process; the caller must not modify it
     */
    public byte[] natsBlock() {
        return natsBlock;
    }

    /**
     * @return the NATS header block: the one received when these headers came from one, else these
     *         headers encoded as {@code NATS/1.0\r\n(Name: value\r\n)*\r\n} (UTF-8); the caller must
     *         not modify it
     */
    public byte[] toNatsBlock() {
        return NatsHeaderBlock.encode(this);
    }

    /**
     * @return the status of a NATS block's version line ({@code "503"} of {@code NATS/1.0 503}),
     *         or {@code null} when there is none
     */
    public String status() {
        return NatsHeaderBlock.status(natsBlock);
    }

    private Map<String, List<String>> values() {
        Map<String, List<String>> map = values;
        if (map == null) {
            map = NatsHeaderBlock.read(natsBlock).values;
            values = map;
        }
        return map;
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
        if (values == null && name != null && readBlock() != NOT_ASCII) {
            // The store reads Nats-Msg-Id of every durable publish: read it without parsing the rest.
            byte[] ascii = NatsHeaderLines.asciiName(name);
            long value = ascii == null ? -1 : NatsHeaderLines.first(natsBlock, ascii);
            return value < 0 ? null : new String(natsBlock, NatsHeaderLines.start(value),
                    NatsHeaderLines.end(value) - NatsHeaderLines.start(value), StandardCharsets.ISO_8859_1);
        }
        List<String> list = values().get(name);
        return list == null ? null : list.get(0);
    }

    /**
     * @param name a header name
     * @return every value of {@code name} in insertion order; empty when absent
     */
    public List<String> all(String name) {
        return values().getOrDefault(name, List.of());
    }

    /** @return the header names in insertion order */
    public Set<String> names() {
        return values().keySet();
    }

    /**
     * @return {@code true} when there is no header (a NATS block may still carry a status line:
     *         see {@link #natsBlock()})
     */
    public boolean isEmpty() {
        if (values == null) {
            byte known = readBlock();
            if (known != NOT_ASCII) {
                return known == NO_HEADER; // asked of every delivery: read without parsing
            }
        }
        return values().isEmpty();
    }

    /** @return what the NATS block holds: {@link #NOT_ASCII}, {@link #NO_HEADER} or {@link #HAS_HEADER} */
    private byte readBlock() {
        byte known = read;
        if (known == UNREAD) {
            known = !NatsHeaderLines.isAscii(natsBlock) ? NOT_ASCII
                    : NatsHeaderLines.hasHeader(natsBlock) ? HAS_HEADER : NO_HEADER;
            read = known;
        }
        return known;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Headers h && h.values().equals(values());
    }

    @Override
    public int hashCode() {
        return values().hashCode();
    }

    @Override
    public String toString() {
        return values().toString();
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
            return new Headers(Collections.unmodifiableMap(copy), null);
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
