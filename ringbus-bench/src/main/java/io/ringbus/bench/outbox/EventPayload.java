package io.ringbus.bench.outbox;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The payload of every benchmark row: {@value #BYTES} bytes, a small JSON-looking body whose
 * first 8 bytes are the producer's sequence number (big-endian), so a sink or an HTTP endpoint
 * can tell which event it got without a database lookup.
 *
 * <pre>
 * bytes 0..7   sequence number, 0-based, big-endian
 * bytes 8..    {"type":"order.paid","amount":...} padded with spaces
 * </pre>
 */
final class EventPayload {
    /** Payload size, about a small domain event in JSON. */
    static final int BYTES = 128;
    /** The subject every row is appended to. */
    static final String SUBJECT = "bench.orders.paid";
    /** Distinct ordering keys (aggregate ids) of the keyed workloads. */
    static final int KEYS = 1_000;

    private static final byte[] BODY = "{\"type\":\"order.paid\",\"amount\":1250,\"currency\":\"KRW\"}"
            .getBytes(StandardCharsets.US_ASCII);

    private EventPayload() {
    }

    /**
     * @param sequence the event's sequence number, &gt;= 0
     * @return a new payload carrying it
     */
    static byte[] encode(int sequence) {
        byte[] payload = new byte[BYTES];
        Arrays.fill(payload, 8, BYTES, (byte) ' ');
        System.arraycopy(BODY, 0, payload, 8, BODY.length);
        long value = sequence;
        for (int i = 7; i >= 0; i--) {
            payload[i] = (byte) value;
            value >>>= 8;
        }
        return payload;
    }

    /**
     * @param payload a payload made by {@link #encode(int)}
     * @return its sequence number, or -1 when it is too short to hold one
     */
    static long sequence(byte[] payload) {
        if (payload.length < 8) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = value << 8 | (payload[i] & 0xFF);
        }
        return value;
    }

    /**
     * @param sequence a sequence number
     * @return its ordering key: one of {@value #KEYS} aggregate ids, by a fixed hash (not round
     * robin, so neighbouring rows often share a key as they do in real traffic)
     */
    static String key(int sequence) {
        return "order-" + keyIndex(sequence);
    }

    /**
     * @param sequence a sequence number
     * @return the index of its key, 0 to {@value #KEYS} - 1
     */
    static int keyIndex(int sequence) {
        // splitmix64 finaliser: a fixed, seedless, well-spread mapping from sequence to key.
        long z = sequence * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (int) Math.floorMod(z, (long) KEYS);
    }
}
