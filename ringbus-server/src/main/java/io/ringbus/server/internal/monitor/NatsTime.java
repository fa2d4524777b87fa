package io.ringbus.server.internal.monitor;

import java.time.Instant;

/**
 * Times and durations written the way nats-server's monitoring JSON has them, so that NATS
 * tooling parses them: instants as RFC 3339 UTC, {@code uptime}/{@code idle} as
 * {@code 1d2h3m4s}, {@code rtt} as a Go duration ({@code 361µs}, {@code 1.5ms}).
 */
final class NatsTime {
    private NatsTime() {
    }

    /** @return e.g. {@code 2026-11-21T08:06:00.832Z} */
    static String instant(long epochMillis) {
        return Instant.ofEpochMilli(epochMillis).toString();
    }

    /** @return nats-server's uptime format: {@code 0s}, {@code 4s}, {@code 3m4s}, {@code 2h3m4s}, {@code 1d2h3m4s} */
    static String uptime(long millis) {
        long s = Math.max(0, millis / 1000);
        long days = s / 86_400;
        long hours = s / 3_600 % 24;
        long minutes = s / 60 % 60;
        long seconds = s % 60;
        StringBuilder out = new StringBuilder();
        if (days > 0) {
            out.append(days).append('d');
        }
        if (days > 0 || hours > 0) {
            out.append(hours).append('h');
        }
        if (days > 0 || hours > 0 || minutes > 0) {
            out.append(minutes).append('m');
        }
        return out.append(seconds).append('s').toString();
    }

    /** @return a Go {@code time.Duration} string: {@code 0s}, {@code 850ns}, {@code 361µs}, {@code 1.5ms}, {@code 2.25s} */
    static String goDuration(long nanos) {
        if (nanos <= 0) {
            return "0s";
        }
        if (nanos < 1_000) {
            return nanos + "ns";
        }
        if (nanos < 1_000_000) {
            return trim(nanos / 1e3) + "µs";
        }
        if (nanos < 1_000_000_000) {
            return trim(nanos / 1e6) + "ms";
        }
        return trim(nanos / 1e9) + "s";
    }

    private static String trim(double value) {
        String s = String.format(java.util.Locale.ROOT, "%.3f", value);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
