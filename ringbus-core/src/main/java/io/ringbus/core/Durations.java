package io.ringbus.core;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * The one duration grammar of ringbus, read by the server's configuration file, the outbox and
 * bench command lines (see docs/core.md, "Durations"). No other code parses durations from text.
 *
 * <pre>
 * duration = amount unit | iso
 * amount   = 1*DIGIT                                  ; a whole, non-negative count
 * unit     = "ns" | "us" | "ms" | "s" | "m" | "min" | "h"   ; m and min are both minutes
 * iso      = ISO-8601, as {@link Duration#parse} reads it ; PT0.5S, PT1M30S, P1D, -PT5S
 * </pre>
 * Letters are case-insensitive ({@code 10MS}, {@code pt10s}); whitespace around the text is
 * ignored. Examples: {@code 500us}, {@code 30ms}, {@code 2s}, {@code 2m}, {@code 1h},
 * {@code PT0.5S}.
 *
 * <p>Stateless; every method may be called from any thread.
 */
public final class Durations {
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NANOS_PER_MINUTE = 60_000_000_000L;

    private Durations() {
    }

    /**
     * Reads a duration written in the grammar above.
     *
     * @param value for example {@code 30ms}, {@code 2m} or {@code PT0.5S}
     * @return the duration
     * @throws IllegalArgumentException naming the value when it is null, not in the grammar, or
     *                                  too large for a {@link Duration}
     */
    public static Duration parse(String value) {
        if (value == null) {
            throw new IllegalArgumentException("duration must not be null");
        }
        String text = value.strip();
        int unitAt = 0;
        while (unitAt < text.length() && Character.isDigit(text.charAt(unitAt))) {
            unitAt++;
        }
        try {
            if (unitAt == 0) {
                return Duration.parse(text);
            }
            long amount = Long.parseLong(text, 0, unitAt, 10);
            return switch (text.substring(unitAt).toLowerCase(Locale.ROOT)) {
                case "ns" -> Duration.ofNanos(amount);
                case "us" -> Duration.ofNanos(Math.multiplyExact(amount, NANOS_PER_MICRO));
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m", "min" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> throw notADuration(value);
            };
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw notADuration(value);
        }
    }

    /**
     * Writes a duration in the shortest of the forms {@link #parse} reads, using the largest of
     * {@code m}, {@code s}, {@code ms}, {@code us}, {@code ns} that holds it exactly: {@code 30ms},
     * {@code 90s}, {@code 120m}, {@code 0ms}. For a non-negative duration,
     * {@code parse(format(d))} equals {@code d}.
     *
     * @param duration a duration of at most about 292 years (its nanoseconds fit a {@code long})
     * @return its text
     * @throws ArithmeticException when the duration is too long to count in nanoseconds
     */
    public static String format(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos != 0 && nanos % NANOS_PER_MINUTE == 0) {
            return nanos / NANOS_PER_MINUTE + "m";
        }
        if (nanos != 0 && nanos % NANOS_PER_SECOND == 0) {
            return nanos / NANOS_PER_SECOND + "s";
        }
        if (nanos % NANOS_PER_MILLI == 0) {
            return nanos / NANOS_PER_MILLI + "ms";
        }
        if (nanos % NANOS_PER_MICRO == 0) {
            return nanos / NANOS_PER_MICRO + "us";
        }
        return nanos + "ns";
    }

    private static IllegalArgumentException notADuration(String value) {
        return new IllegalArgumentException("not a duration (a whole number with ns, us, ms, s, m, min or h,"
                + " e.g. 500ms, 2s, 1m, 1h, or ISO-8601 like PT0.5S): duration='" + value + "'");
    }
}
