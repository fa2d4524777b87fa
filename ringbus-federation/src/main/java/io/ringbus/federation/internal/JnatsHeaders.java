package io.ringbus.federation.internal;

import io.ringbus.core.Headers;
import io.ringbus.core.wire.HeaderNames;
import io.ringbus.core.wire.NatsHeaderBlock;

import java.util.List;

/**
 * Hands ringbus {@link Headers} to jnats and back. The wire format is core's codec
 * ({@link NatsHeaderBlock}, {@link HeaderNames}): what jnats delivers is kept as the NATS block it
 * serializes to, read on first use and forwarded by a server as is.
 *
 * <p>Stored headers are the publisher's plus {@code Nats-Msg-Id} when a message id was given (as
 * the local store keeps them). {@code Nats-Expected-Stream}, which every append sends so that
 * JetStream refuses a subject captured by another stream, is JetStream's and the server keeps it
 * with the message: it is left out when reading.
 *
 * <p>Threading: static methods without state.
 */
public final class JnatsHeaders {
    private JnatsHeaders() {
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
     * @param nats headers of a message NATS delivered, or {@code null}
     * @return the same names and values over the block jnats serializes them to, without
     *         {@code Nats-Expected-Stream}; a line ringbus cannot read as a header is skipped when
     *         read, as a NATS client skips a malformed line
     */
    public static Headers fromNats(io.nats.client.impl.Headers nats) {
        if (nats == null || nats.isEmpty()) {
            return Headers.EMPTY;
        }
        io.nats.client.impl.Headers kept = nats;
        if (nats.containsKey(HeaderNames.EXPECTED_STREAM)) {
            kept = new io.nats.client.impl.Headers(nats);
            kept.remove(HeaderNames.EXPECTED_STREAM);
            if (kept.isEmpty()) {
                return Headers.EMPTY;
            }
        }
        return NatsHeaderBlock.wrap(kept.getSerialized());
    }
}
