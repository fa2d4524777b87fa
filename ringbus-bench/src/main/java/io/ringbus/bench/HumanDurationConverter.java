package io.ringbus.bench;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Reads durations written as people write them: {@code 500us}, {@code 30ms}, {@code 10s},
 * {@code 1m}, or ISO-8601 ({@code PT10S}). The number is a whole, non-negative count.
 */
public final class HumanDurationConverter implements ITypeConverter<Duration> {
    /** Creates the converter; picocli instantiates it. */
    public HumanDurationConverter() {
    }

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * @param value for example {@code 30ms}
     * @return the duration
     * @throws TypeConversionException naming the value when it is not understood
     */
    public static Duration parse(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (text.startsWith("pt")) {
                return Duration.parse(text.toUpperCase(Locale.ROOT));
            }
            int unitAt = 0;
            while (unitAt < text.length() && Character.isDigit(text.charAt(unitAt))) {
                unitAt++;
            }
            long amount = Long.parseLong(text.substring(0, unitAt));
            return switch (text.substring(unitAt)) {
                case "ns" -> Duration.ofNanos(amount);
                case "us" -> Duration.ofNanos(amount * 1_000);
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m", "min" -> Duration.ofMinutes(amount);
                default -> throw new TypeConversionException("unknown unit (use ns, us, ms, s, m): duration='" + value + "'");
            };
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new TypeConversionException("not a duration like 30ms or 10s: duration='" + value + "'");
        }
    }

    /**
     * @param duration a duration
     * @return it in the shortest of the forms {@link #parse(String)} reads, e.g. {@code 30ms}
     */
    public static String format(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos % 60_000_000_000L == 0 && nanos != 0) {
            return nanos / 60_000_000_000L + "m";
        }
        if (nanos % 1_000_000_000L == 0 && nanos != 0) {
            return nanos / 1_000_000_000L + "s";
        }
        if (nanos % 1_000_000L == 0) {
            return nanos / 1_000_000L + "ms";
        }
        if (nanos % 1_000L == 0) {
            return nanos / 1_000L + "us";
        }
        return nanos + "ns";
    }
}
