package io.ringbus.server.internal;

import io.ringbus.core.BrokerBuilder;
import io.ringbus.core.Durations;
import io.ringbus.core.Scope;
import io.ringbus.server.Permissions;
import io.ringbus.server.ServerConfig;

import io.ringbus.server.spi.ConfigKey;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's configuration file: Java properties. Every key is one of {@link ServerConfigKeys}'s
 * (the reference, docs/configuration.md, is generated from that table) or an extension's
 * ({@code jetstream.*}); an unknown key or a bad value fails with a message naming the key, the
 * value and the file.
 *
 * <p>Comments: a line whose first non-blank character is {@code #} or {@code !}, as in any
 * properties file, and a trailing comment: {@code #} after a blank ends the value
 * ({@code max_memory=1g   # heap for messages}). A value that holds a blank and then {@code #}
 * escapes the {@code #} as {@code \#}.
 */
public final class ConfigFile {
    /** A {@code #} after a blank (so not an escaped {@code \#}), and the rest of the line. */
    private static final Pattern TRAILING_COMMENT = Pattern.compile("[ \\t]+#.*$");
    private static final Pattern SIZE = Pattern.compile("(\\d+)([kmg]?)b?");
    private static final List<Entry> ENTRIES = entries();

    /** One row of the table, its name as a pattern when it has placeholders. */
    private record Entry(ServerConfigKeys.Row row, Pattern pattern) {
        /** @return the texts of the placeholders when the key is this entry's, else {@code null} */
        List<String> match(String key) {
            Matcher m = pattern.matcher(key);
            if (!m.matches()) {
                return null;
            }
            List<String> parts = new ArrayList<>(m.groupCount());
            for (int i = 1; i <= m.groupCount(); i++) {
                parts.add(m.group(i));
            }
            return parts;
        }
    }

    private final Path path;

    private ConfigFile(Path path) {
        this.path = path;
    }

    /**
     * Reads a file and applies it to the builders.
     *
     * @param path    the file
     * @param server  gets the server's settings
     * @param broker  gets the {@code broker.*} settings
     * @param storage gets the {@code storage.*} settings and durable subjects
     * @return the subject scopes the file registers, in file order
     * @throws IllegalArgumentException naming the file, key and value on any bad entry
     * @throws IOException              when the file cannot be read
     */
    public static Map<String, Scope> apply(Path path, ServerConfig.Builder server, BrokerBuilder broker,
                                           StorageSettings storage) throws IOException {
        return apply(path, server, broker, storage, new FederationSettings());
    }

    /**
     * Reads a file and applies it to the builders, {@code federation.*} included.
     *
     * @param path       the file
     * @param server     gets the server's settings
     * @param broker     gets the {@code broker.*} settings
     * @param storage    gets the {@code storage.*} settings and durable subjects
     * @param federation gets the {@code federation.*} settings
     * @return the subject scopes the file registers, in file order
     * @throws IllegalArgumentException naming the file, key and value on any bad entry
     * @throws IOException              when the file cannot be read
     */
    public static Map<String, Scope> apply(Path path, ServerConfig.Builder server, BrokerBuilder broker,
                                           StorageSettings storage, FederationSettings federation)
            throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(withoutTrailingComments(Files.readString(path, StandardCharsets.UTF_8))));
        ConfigFile file = new ConfigFile(path);
        ConfigTargets targets = new ConfigTargets(server, broker, storage, federation, new LinkedHashMap<>(),
                new LinkedHashMap<>());
        for (String key : properties.stringPropertyNames()) {
            String value = properties.getProperty(key).trim();
            try {
                file.applyOne(key, value, targets);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(path + ": " + key + "=" + value + ": " + e.getMessage(), e);
            }
        }
        targets.permissions().forEach((name, builder) -> server.permissions(name, builder.build()));
        return targets.subjects();
    }

    /**
     * @return the server's own keys, in the reference's order, each with its section
     */
    public static List<Map.Entry<String, ConfigKey>> keys() {
        return ENTRIES.stream().map(e -> Map.entry(e.row().section(), e.row().key())).toList();
    }

    /**
     * Drops trailing comments, line by line: a {@code #} after a blank starts one. Comment lines,
     * and the lines a backslash continues, are left to {@link Properties}.
     *
     * @param text a properties file
     * @return the text without trailing comments
     */
    static String withoutTrailingComments(String text) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String stripped = lines[i].stripLeading();
            if (!stripped.startsWith("#") && !stripped.startsWith("!")) {
                lines[i] = TRAILING_COMMENT.matcher(lines[i]).replaceFirst("");
            }
        }
        return String.join("\n", lines);
    }

    /** {@code true} | {@code false} | {@code <max>[,<expires>]} (max 0: the default 1; negative: unlimited). */
    static Permissions.Responses responses(String value) {
        if (value.equalsIgnoreCase("true")) {
            return Permissions.Responses.DEFAULT;
        }
        if (value.equalsIgnoreCase("false")) {
            return null;
        }
        String[] parts = value.split("\\s*,\\s*");
        if (parts.length > 2) {
            throw new IllegalArgumentException("expected true | false | <max>[,<expires>]");
        }
        int max = integer(parts[0]);
        return new Permissions.Responses(max == 0 ? Permissions.Responses.DEFAULT.maxMessages() : max,
                parts.length == 1 ? Permissions.Responses.DEFAULT.expires()
                        : parts[1].equals("0") ? Duration.ZERO : Durations.parse(parts[1]));
    }

    private void applyOne(String key, String value, ConfigTargets targets) {
        for (Entry entry : ENTRIES) {
            List<String> parts = entry.match(key);
            if (parts != null) {
                entry.row().setter().set(targets, parts, value);
                return;
            }
        }
        int dot = key.indexOf('.');
        if (dot <= 0 || !targets.server().extensionNames().contains(key.substring(0, dot))) {
            throw new IllegalArgumentException("unknown key (see docs/configuration.md)" + similar(key));
        }
        targets.server().extensionSetting(key, value); // an extension's own key (jetstream.*): it checks it
    }

    /**
     * @return the keys that share the unknown one's first part, else the one key a typo or two away
     *         ({@code prot}: port), as a hint, or nothing
     */
    private static String similar(String key) {
        int dot = key.indexOf('.');
        String first = dot > 0 ? key.substring(0, dot + 1) : key;
        List<String> names = ENTRIES.stream().map(e -> e.row().key().name()).filter(n -> n.startsWith(first)).toList();
        if (!names.isEmpty()) {
            return "; keys starting " + first + ": " + String.join(", ", names);
        }
        return ENTRIES.stream().map(e -> e.row().key().name()).filter(n -> !n.contains("<"))
                .filter(n -> editDistance(n, key) <= 2).findFirst().map(n -> "; did you mean " + n + "?").orElse("");
    }

    /** @return the Levenshtein distance of two short strings */
    private static int editDistance(String a, String b) {
        int[] row = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            row[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int above = row[j];
                row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1),
                        diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                diagonal = above;
            }
        }
        return row[b.length()];
    }

    private static List<Entry> entries() {
        return ServerConfigKeys.rows().stream().map(row -> new Entry(row, namePattern(row.key()))).toList();
    }

    /** {@code permissions.<user or token>.publish.allow} matches {@code permissions.(.+)\.publish\.allow}. */
    private static Pattern namePattern(ConfigKey key) {
        StringBuilder regex = new StringBuilder();
        Matcher placeholder = Pattern.compile("<[^>]+>").matcher(key.name());
        int from = 0;
        while (placeholder.find()) {
            regex.append(Pattern.quote(key.name().substring(from, placeholder.start()))).append("(.+)");
            from = placeholder.end();
        }
        regex.append(Pattern.quote(key.name().substring(from)));
        return Pattern.compile(regex.toString());
    }

    static Scope scope(String value) {
        try {
            return Scope.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a scope (PUBLIC, FEDERATED, PRIVATE, ROOT): '" + value + "'");
        }
    }

    static boolean bool(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not a boolean (true, false): '" + value + "'");
        };
    }

    static int integer(String value) {
        try {
            return Integer.parseInt(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer: '" + value + "'");
        }
    }

    /** Parses {@code 1048576}, {@code 64k}, {@code 64m}, {@code 1g} (binary units). */
    static long size(String value) {
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT).replace("_", ""));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size (e.g. 1048576, 64k, 64m): '" + value + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "k" -> n << 10;
            case "m" -> n << 20;
            case "g" -> n << 30;
            default -> n;
        };
    }

    /**
     * The inverse of {@link #size}.
     *
     * @param bytes a size
     * @return bytes in the largest binary unit that holds them exactly: {@code 64m}, {@code 256k}, {@code 1000}
     */
    public static String sizeText(long bytes) {
        if (bytes != 0 && bytes % (1L << 30) == 0) {
            return bytes / (1L << 30) + "g";
        }
        if (bytes != 0 && bytes % (1L << 20) == 0) {
            return bytes / (1L << 20) + "m";
        }
        if (bytes != 0 && bytes % (1L << 10) == 0) {
            return bytes / (1L << 10) + "k";
        }
        return String.valueOf(bytes);
    }
}
