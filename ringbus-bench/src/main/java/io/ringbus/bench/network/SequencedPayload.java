package io.ringbus.bench.network;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The network scenarios' payloads: the publisher's index and a per-publisher sequence number in
 * the first {@value #HEADER_BYTES} bytes, so that a subscriber can prove it got every message
 * once and in order.
 *
 * <pre>
 * offset 0: int  publisher   (big-endian)
 * offset 4: long sequence    (big-endian), 0, 1, 2, ... per publisher
 * offset 12: zeros up to the payload size
 * </pre>
 *
 * <p>jnats keeps a reference to a published array until its writer thread has copied it into
 * the socket buffer, so each message gets a fresh array; reusing one would race with that copy.
 */
final class SequencedPayload {
    /** Bytes taken by the publisher index and the sequence number. */
    static final int HEADER_BYTES = 12;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private SequencedPayload() {
    }

    /**
     * @param size      payload size, &gt;= {@value #HEADER_BYTES}
     * @param publisher the publisher's index
     * @param sequence  the message's number within that publisher's stream
     * @return a new payload
     */
    static byte[] create(int size, int publisher, long sequence) {
        byte[] payload = new byte[size];
        INT.set(payload, 0, publisher);
        LONG.set(payload, 4, sequence);
        return payload;
    }

    /**
     * @param payload a payload made by {@link #create}
     * @return its publisher index, or -1 when the payload is too short to be one
     */
    static int publisher(byte[] payload) {
        return payload.length < HEADER_BYTES ? -1 : (int) INT.get(payload, 0);
    }

    /**
     * @param payload a payload made by {@link #create}
     * @return its sequence number
     */
    static long sequence(byte[] payload) {
        return (long) LONG.get(payload, 4);
    }
}
