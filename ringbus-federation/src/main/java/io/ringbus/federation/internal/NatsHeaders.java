package io.ringbus.federation.internal;

import io.ringbus.core.Headers;

import java.util.List;
import java.util.Map;

/**
 * Converts between ringbus {@link Headers} and jnats' {@link io.nats.client.impl.Headers}.
 *
 * <p>Stored headers are the publisher's plus {@code Nats-Msg-Id} when a message id was given (as
 * the local store keeps them). {@value #EXPECTED_STREAM}, which every append sends so that
 * JetStream refuses a subject captured by another stream, is JetStream's and the server keeps it
 * with the message: it is left out when reading.
 *
 * <p>Threading: static methods without state.
 */
public final class NatsHeaders {
    /** JetStream's message id header: a second message with the same id in the duplicate window is dropped. */
    public static final String MSG_ID = "Nats-Msg-Id";
    /** The header naming the stream an append expects to store it. */
    public static final String EXPECTED_STREAM = "Nats-Expected-Stream";

    private NatsHeaders() {
    }

    /**
     * @param headers ringbus headers, or {@code null}
     * @return jnats headers holding the same names and values in order, or {@code null} when there are none
     * @throws IllegalArgumentException naming the header when NATS refuses its name or value
     */
    public static io.nats.client.impl.Headers toNats(Headers headers) {
        if (headers == null || headers.isEmpty()) {
            return null;
        }
        io.nats.client.impl.Headers nats = new io.nats.client.impl.Headers();
        for (String name : headers.names()) {
            List<String> values = headers.all(name);
            try {
                nats.add(name, values);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("header refused by NATS: " + name + "=" + values + " ("
                        + e.getMessage() + ")", e);
            }
        }
        return nats;
    }

    /**
     * @param nats headers of a message JetStream delivered, or {@code null}
     * @return the same names and values, without {@value #EXPECTED_STREAM}; a pair ringbus cannot
     *         hold (a name with a space) is skipped, as a NATS client skips a malformed line
     */
    public static Headers fromNats(io.nats.client.impl.Headers nats) {
        if (nats == null || nats.isEmpty()) {
            return Headers.EMPTY;
        }
        Headers.Builder builder = Headers.builder();
        for (Map.Entry<String, List<String>> entry : nats.entrySet()) {
            if (entry.getKey().equals(EXPECTED_STREAM)) {
                continue;
            }
            for (String value : entry.getValue()) {
                try {
                    builder.add(entry.getKey(), value);
                } catch (IllegalArgumentException malformed) {
                    // Not a header ringbus can hold: skipped, the rest are kept.
                }
            }
        }
        return builder.build();
    }
}
