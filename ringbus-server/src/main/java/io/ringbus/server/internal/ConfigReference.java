package io.ringbus.server.internal;

import io.ringbus.server.spi.ConfigKey;
import io.ringbus.server.spi.ServerExtension;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the configuration reference ({@code docs/configuration.md}) and the sample file
 * ({@code deploy/ringbus.properties}) from the descriptions beside the code that reads the keys:
 * {@link ConfigFile#keys()}, {@link StorageSettings#SPEC_WORDS} and each extension's
 * {@link ServerExtension#configKeys()}. A test compares both files with what this writes, so they
 * never drift from the parser.
 */
public final class ConfigReference {
    /** What a placeholder of a key's name becomes in the sample file. */
    private static final Map<String, String> PLACEHOLDER_EXAMPLES = Map.of(
            "<pattern>", "orders.>",
            "<token>", "s3cr3t",
            "<name>", "alice",
            "<user or token>", "alice",
            "<public key U...>", "UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4");
    private static final Pattern PLACEHOLDER = Pattern.compile("<[^>]+>");
    private static final String GENERATED = "Generated from the code that reads the keys (ServerConfigKeys, "
            + "StorageSettings.SPEC_WORDS, each extension's configKeys()) by ConfigReferenceTest";

    private ConfigReference() {
    }

    /**
     * @param extensions the extensions whose keys to include (the standalone server's: those on the class path)
     * @return the reference, Markdown
     */
    public static String markdown(List<ServerExtension> extensions) {
        StringBuilder out = new StringBuilder(16_384);
        out.append("# Configuration reference\n\n");
        out.append("<!-- ").append(GENERATED).append(": edit those, then run\n")
                .append("     ./mvnw -pl ringbus-jetstream -am test -Dtest=ConfigReferenceTest -Dringbus.regenerate=true"
                        + " -Dsurefire.failIfNoSpecifiedTests=false -->\n\n");
        out.append("""
                `ringbus-server --config FILE` (and `bin/run --config FILE`) reads a Java properties file:
                `key = value` per line. A line starting with `#` or `!` is a comment, and so is the rest of a
                line from a `#` that follows a blank (`max_memory = 1g   # heap for messages`); write `\\#`
                for a `#` after a blank inside a value. An unknown key or a bad value stops the start with
                one line naming the file, the key and the value. Command-line options (`--help`) override
                the file. Relative paths are relative to the server's working directory.

                A sample with every key, commented out at its default:
                [deploy/ringbus.properties](../deploy/ringbus.properties) (the distribution's
                `conf/ringbus.properties`).

                ## Types

                | type | written as |
                |---|---|
                | integer | `65536` or `65_536` |
                | size | bytes, or with a binary unit: `64k`, `1m`, `10g` (an optional `b`: `64kb`) |
                | duration | `500ms`, `2s`, `2m`, `1h` (also `us`, `ns`, `min`), or ISO-8601 `PT0.5S` |
                | true \\| false | `true` or `false` |
                | PUBLIC \\| FEDERATED \\| PRIVATE \\| ROOT | a scope ([routing.md](routing.md)), any case |
                | path | a file or directory; relative to the working directory |

                """);
        String section = null;
        for (Map.Entry<String, ConfigKey> entry : ConfigFile.keys()) {
            if (!entry.getKey().equals(section)) {
                section = entry.getKey();
                out.append("\n## ").append(section).append("\n\n");
                tableHead(out);
            }
            row(out, entry.getValue().name(), entry.getValue());
        }
        out.append("\n### A durable subject's spec\n\n")
                .append("`storage.durable.<pattern> = [SCOPE] [word=value ...]` (and `--durable 'PATTERN=SPEC'`): "
                        + "words separated by spaces or commas. Without a SCOPE the pattern keeps the scope its "
                        + "subjects have (`subject.<pattern>`, else `broker.default_scope`).\n\n");
        tableHead(out);
        for (ConfigKey word : StorageSettings.SPEC_WORDS) {
            row(out, word.name(), word);
        }
        for (ServerExtension extension : extensions) {
            if (extension.configKeys().isEmpty()) {
                continue;
            }
            out.append("\n## Extension ").append(extension.name()).append(" (`").append(extension.name())
                    .append(".*`)\n\n");
            tableHead(out);
            for (ConfigKey key : extension.configKeys()) {
                row(out, extension.name() + "." + key.name(), key);
            }
        }
        return out.toString();
    }

    /**
     * @param extensions the extensions whose keys to include
     * @return a properties file with every key commented out, at its default or an example
     */
    public static String sample(List<ServerExtension> extensions) {
        StringBuilder out = new StringBuilder(16_384);
        out.append("# ringbus-server configuration: every key, commented out at its default (or, where there is\n")
                .append("# none, an example). Remove the leading # to change one. The reference: docs/configuration.md.\n")
                .append("# ").append(GENERATED).append(".\n")
                .append("# Sizes: 64k, 1m, 1g. Durations: 500ms, 2s, 2m, 1h. A # after a blank starts a comment.\n");
        String section = null;
        for (Map.Entry<String, ConfigKey> entry : ConfigFile.keys()) {
            if (!entry.getKey().equals(section)) {
                section = entry.getKey();
                out.append("\n# ---- ").append(section).append(" ----\n");
            }
            sampleLine(out, entry.getValue().name(), entry.getValue());
        }
        for (ServerExtension extension : extensions) {
            if (extension.configKeys().isEmpty()) {
                continue;
            }
            out.append("\n# ---- Extension ").append(extension.name()).append(" ----\n");
            for (ConfigKey key : extension.configKeys()) {
                sampleLine(out, extension.name() + "." + key.name(), key);
            }
        }
        return out.toString();
    }

    private static void tableHead(StringBuilder out) {
        out.append("| key | type | default | what it does |\n|---|---|---|---|\n");
    }

    private static void row(StringBuilder out, String name, ConfigKey key) {
        String value;
        if (key.defaultValue().isEmpty()) {
            value = key.example().isEmpty() ? "none" : "none (e.g. `" + key.example() + "`)";
        } else {
            value = literal(key) ? "`" + key.defaultValue() + "`" : key.defaultValue();
        }
        out.append("| `").append(cell(name)).append("` | ").append(key.type().indexOf('<') >= 0 ? "`" + key.type() + "`" : cell(key.type())).append(" | ")
                .append(cell(value)).append(" | ").append(cell(key.description())).append(" |\n");
    }

    private static void sampleLine(StringBuilder out, String name, ConfigKey key) {
        out.append("# ").append(key.description());
        if (!literal(key)) {
            out.append(" Default: ").append(key.defaultValue().isEmpty() ? "none" : key.defaultValue()).append('.');
        }
        out.append('\n');
        String value = literal(key) ? key.defaultValue() : key.example();
        if (value.isEmpty()) {
            throw new IllegalStateException("config key " + name + " has neither a written default nor an example");
        }
        out.append('#').append(concrete(name)).append(" = ").append(value).append('\n');
    }

    /** @return whether the default is a value as written in the file, not words about one */
    private static boolean literal(ConfigKey key) {
        return !key.defaultValue().isEmpty() && key.defaultValue().indexOf(' ') < 0 && key.example().isEmpty();
    }

    /** @return the name with each placeholder replaced by its example */
    private static String concrete(String name) {
        Matcher m = PLACEHOLDER.matcher(name);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String example = PLACEHOLDER_EXAMPLES.get(m.group());
            if (example == null) {
                throw new IllegalStateException("no example for the placeholder " + m.group() + " of " + name);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(example));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
