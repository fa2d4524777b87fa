package io.ringbus.server.internal.monitor;

/**
 * Per-second message and byte rates over the last {@link #CAPACITY} seconds, for the
 * dashboard's chart: a ring of samples, each the difference of the server's counters between two
 * ticks. Only the monitor's event loop touches it (the tick is scheduled there, the dashboard
 * is served there), so it needs no synchronization.
 */
final class ThroughputHistory {
    /** Five minutes of one-second samples. */
    static final int CAPACITY = 300;

    private final long[] epochMillis = new long[CAPACITY];
    private final long[] inMsgs = new long[CAPACITY];
    private final long[] outMsgs = new long[CAPACITY];
    private final long[] inBytes = new long[CAPACITY];
    private final long[] outBytes = new long[CAPACITY];
    private int count;
    private int next;
    private boolean primed;
    private long lastNanos;
    private long lastInMsgs;
    private long lastOutMsgs;
    private long lastInBytes;
    private long lastOutBytes;

    /** Monitor loop: records the rates since the previous tick (the first tick only primes). */
    void tick(long nowNanos, long nowMillis, long inMsgsTotal, long outMsgsTotal, long inBytesTotal,
              long outBytesTotal) {
        if (primed) {
            double seconds = Math.max(1e-3, (nowNanos - lastNanos) / 1e9);
            epochMillis[next] = nowMillis;
            inMsgs[next] = Math.round((inMsgsTotal - lastInMsgs) / seconds);
            outMsgs[next] = Math.round((outMsgsTotal - lastOutMsgs) / seconds);
            inBytes[next] = Math.round((inBytesTotal - lastInBytes) / seconds);
            outBytes[next] = Math.round((outBytesTotal - lastOutBytes) / seconds);
            next = (next + 1) % CAPACITY;
            count = Math.min(count + 1, CAPACITY);
        }
        primed = true;
        lastNanos = nowNanos;
        lastInMsgs = inMsgsTotal;
        lastOutMsgs = outMsgsTotal;
        lastInBytes = inBytesTotal;
        lastOutBytes = outBytesTotal;
    }

    /** Monitor loop: writes {@code {"interval_ms":1000,"t":[...],"in_msgs":[...],...}}, oldest first. */
    void write(JsonResponse json) {
        json.beginObject().field("interval_ms", 1000);
        series(json, "t", epochMillis);
        series(json, "in_msgs", inMsgs);
        series(json, "out_msgs", outMsgs);
        series(json, "in_bytes", inBytes);
        series(json, "out_bytes", outBytes);
        json.endObject();
    }

    private void series(JsonResponse json, String name, long[] values) {
        json.name(name).beginArray();
        int first = (next - count + CAPACITY) % CAPACITY;
        for (int i = 0; i < count; i++) {
            json.value(values[(first + i) % CAPACITY]);
        }
        json.endArray();
    }
}
