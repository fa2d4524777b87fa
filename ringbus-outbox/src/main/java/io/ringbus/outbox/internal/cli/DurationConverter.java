package io.ringbus.outbox.internal.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads a duration option: a whole number with a unit, {@code ms}, {@code s}, {@code m} or
 * {@code h} ({@code 500ms}, {@code 2s}), or ISO-8601 ({@code PT0.5S}).
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern WITH_UNIT = Pattern.compile("(\\d{1,12})(ms|s|m|h)");

    /** Creates the converter (picocli instantiates it). */
    public DurationConverter() {
    }

    @Override
    public Duration convert(String value) {
        String text = value.strip().toLowerCase(Locale.ROOT);
        Matcher matcher = WITH_UNIT.matcher(text);
        if (matcher.matches()) {
            long amount = Long.parseLong(matcher.group(1));
            return switch (matcher.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
        }
        try {
            return Duration.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException("not a duration (e.g. 500ms, 2s, 1m, PT0.5S): '" + value + "'");
        }
    }
}
