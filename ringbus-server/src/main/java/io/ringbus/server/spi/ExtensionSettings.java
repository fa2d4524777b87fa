package io.ringbus.server.spi;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An extension's settings: the {@code <name>.<key> = value} entries of the configuration file and
 * what command-line options set (for example {@code --no-jetstream} is {@code jetstream.enabled=false}).
 * Immutable.
 *
 * @param name    the extension's name (the keys' namespace)
 * @param entries the keys without the namespace, to their values
 */
public record ExtensionSettings(String name, Map<String, String> entries) {
    /** Copies the entries, sorted. */
    public ExtensionSettings {
        entries = Map.copyOf(new TreeMap<>(entries));
    }

    /** @param key a key without the namespace @return its value, if set */
    public Optional<String> get(String key) {
        return Optional.ofNullable(entries.get(key));
    }

    /**
     * @param key      a key without the namespace
     * @param absent   the value when it is not set
     * @return the setting as a boolean
     * @throws IllegalArgumentException naming the key and value when it is not {@code true} or {@code false}
     */
    public boolean flag(String key, boolean absent) {
        String value = entries.get(key);
        if (value == null) {
            return absent;
        }
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(name + "." + key + " must be true or false: '" + value + "'");
        };
    }
}
