package io.ringbus.server.spi;

import java.util.Objects;

/**
 * One key of the server's configuration file, as the configuration reference
 * ({@code docs/configuration.md}) and the sample file ({@code deploy/ringbus.properties}) show it.
 * Both are generated from these descriptions, which live beside the code that reads the keys: the
 * server's own and each extension's ({@link ServerExtension#configKeys()}).
 *
 * @param name         the key; a part in angle brackets stands for any text, e.g. {@code subject.<pattern>}
 * @param type         its value's type, one of the constants of this class or a list of the words it accepts
 *                     ({@code always | interval | os})
 * @param defaultValue the value when the key is absent, as it would be written in the file, or what
 *                     decides it in words ("the number of cores"); empty when there is none
 * @param example      a value to show in the sample file when there is no default; empty otherwise
 * @param description  what it does, one or two sentences
 */
public record ConfigKey(String name, String type, String defaultValue, String example, String description) {
    /** A whole number, {@code _} allowed as a separator. */
    public static final String INTEGER = "integer";
    /** Bytes: a number with an optional binary unit {@code k}, {@code m} or {@code g} ({@code 64k}, {@code 1g}). */
    public static final String SIZE = "size";
    /** A duration: {@code 500ms}, {@code 2s}, {@code 2m}, {@code 1h}, or ISO-8601 {@code PT0.5S}. */
    public static final String DURATION = "duration";
    /** {@code true} or {@code false}. */
    public static final String BOOLEAN = "true | false";
    /** Any text. */
    public static final String TEXT = "text";
    /** A file or directory, relative to the server's working directory unless absolute. */
    public static final String PATH = "path";
    /** A scope: {@code PUBLIC}, {@code FEDERATED}, {@code PRIVATE} or {@code ROOT}. */
    public static final String SCOPE = "PUBLIC | FEDERATED | PRIVATE | ROOT";

    /** Checks that name, type and description are given. */
    public ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(example, "example");
        Objects.requireNonNull(description, "description");
        if (name.isBlank() || description.isBlank()) {
            throw new IllegalArgumentException("a config key needs a name and a description: '" + name + "'");
        }
    }

    /**
     * @param name        the key
     * @param type        its value's type
     * @param defaultValue its default, as written in the file
     * @param description what it does
     * @return a key with a default and no separate example
     */
    public static ConfigKey of(String name, String type, String defaultValue, String description) {
        return new ConfigKey(name, type, defaultValue, "", description);
    }

    /** @return whether the name stands for many keys ({@code subject.<pattern>}) */
    public boolean isPattern() {
        return name.indexOf('<') >= 0;
    }
}
