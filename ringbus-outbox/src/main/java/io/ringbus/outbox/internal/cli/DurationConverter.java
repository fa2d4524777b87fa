package io.ringbus.outbox.internal.cli;

import io.ringbus.core.Durations;
import java.time.Duration;
import picocli.CommandLine;

/**
 * Reads a duration option in ringbus's one duration grammar, {@link Durations} ({@code 500ms},
 * {@code 2s}, {@code 1m}, {@code 1h}, {@code PT0.5S}; see docs/core.md, "Durations"): only
 * delegates, and turns a refusal into picocli's usage error.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    /** The grammar in one line, for the help text of duration options. */
    static final String GRAMMAR = "a duration such as 500ms, 2s, 1m, 1h or PT0.5S (docs/core.md#durations)";

    /** Creates the converter (picocli instantiates it). */
    public DurationConverter() {
    }

    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
