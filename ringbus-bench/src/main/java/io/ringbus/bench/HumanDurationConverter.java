package io.ringbus.bench;

import io.ringbus.core.Durations;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;

/**
 * Reads a duration option in ringbus's one duration grammar, {@link Durations} ({@code 500us},
 * {@code 30ms}, {@code 10s}, {@code 1m}, {@code 1h}, {@code PT10S}; see docs/core.md,
 * "Durations"): only delegates, and turns a refusal into picocli's usage error.
 */
public final class HumanDurationConverter implements ITypeConverter<Duration> {
    /** Creates the converter; picocli instantiates it. */
    public HumanDurationConverter() {
    }

    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    /**
     * Writes a duration as the reports show it; see {@link Durations#format(Duration)}.
     *
     * @param duration a duration
     * @return it in the shortest form the grammar reads, e.g. {@code 30ms}
     */
    public static String format(Duration duration) {
        return Durations.format(duration);
    }
}
