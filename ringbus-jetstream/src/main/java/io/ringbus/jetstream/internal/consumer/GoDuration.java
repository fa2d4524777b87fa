package io.ringbus.jetstream.internal.consumer;

/** Go's {@code time.Duration.String()} for the durations nats-server names in its status texts ("1m30s", "500ms"). */
final class GoDuration {
    private GoDuration() {
    }

    static String format(long nanos) {
        if (nanos == 0) {
            return "0s";
        }
        if (nanos < 1_000_000_000L) {
            if (nanos % 1_000_000 == 0) {
                return nanos / 1_000_000 + "ms";
            }
            if (nanos % 1_000 == 0) {
                return nanos / 1_000 + "µs";
            }
            return nanos + "ns";
        }
        StringBuilder text = new StringBuilder();
        long hours = nanos / 3_600_000_000_000L;
        long minutes = nanos / 60_000_000_000L % 60;
        long rest = nanos % 60_000_000_000L;
        if (hours > 0) {
            text.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            text.append(minutes).append('m');
        }
        String seconds = java.math.BigDecimal.valueOf(rest, 9).stripTrailingZeros().toPlainString();
        return text.append(seconds).append('s').toString();
    }
}
