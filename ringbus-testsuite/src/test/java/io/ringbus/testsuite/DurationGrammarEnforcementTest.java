package io.ringbus.testsuite;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build fails when a second duration parser appears: ringbus reads durations from text in
 * one place, {@code io.ringbus.core.Durations} (issue 14). It lives in ringbus-testsuite, the
 * module for checks that span modules: it scans the main sources of all of them.
 *
 * <p>Rules, applied to the code of every {@code ringbus-*}/src/main/java file but
 * {@code ringbus-core/src/main/java/io/ringbus/core/Durations.java}, comments left out:
 * <ol>
 *   <li>no call of {@code Duration.parse(};</li>
 *   <li>no time-unit suffix {@code "ns"}, {@code "us"}, {@code "µs"}, {@code "ms"} or {@code "min"} as a
 *       {@code case} label or as the argument of {@code equals}, {@code equalsIgnoreCase} or
 *       {@code endsWith} (the suffixes {@code s}, {@code m}, {@code h} are left out: size
 *       parsers use {@code m} too, and no duration parser does without {@code ms});</li>
 *   <li>no string literal holding one of those suffixes as a branch of a regex alternation,
 *       such as {@code (ms|s|m|h)} (a label like {@code "(ms)"} is fine);</li>
 *   <li>a class that implements picocli's {@code ITypeConverter<Duration>} calls
 *       {@code Durations.parse(}.</li>
 * </ol>
 */
class DurationGrammarEnforcementTest {
    private static final Path THE_PARSER = Path.of("ringbus-core", "src", "main", "java", "io", "ringbus", "core",
            "Durations.java");
    private static final String UNIT = "(?:ns|us|µs|ms|min)";
    private static final Pattern ISO_PARSE = Pattern.compile("\\bDuration\\s*\\.\\s*parse\\s*\\(");
    private static final Pattern UNIT_LABEL = Pattern.compile(
            "\\bcase\\s+\"" + UNIT + "\"|\\b(?:equals|equalsIgnoreCase|endsWith)\\s*\\(\\s*\"" + UNIT + "\"\\s*\\)");
    private static final Pattern UNIT_ALTERNATION = Pattern.compile("\\|" + UNIT + "[|)]|[(|]" + UNIT + "\\|");
    private static final Pattern DURATION_CONVERTER = Pattern.compile("\\bITypeConverter\\s*<\\s*Duration\\s*>");

    @Test
    void noMainSourceButDurationsParsesDurations() throws IOException {
        Path root = repositoryRoot();
        List<Path> sources = mainSources(root);
        assertThat(sources).as("main sources found under %s", root)
                .anyMatch(p -> p.endsWith(THE_PARSER))
                .anyMatch(p -> p.toString().contains("ringbus-server"))
                .anyMatch(p -> p.toString().contains("ringbus-outbox"))
                .anyMatch(p -> p.toString().contains("ringbus-bench"));
        List<String> violations = new ArrayList<>();
        for (Path source : sources) {
            if (source.endsWith(THE_PARSER)) {
                continue;
            }
            for (String violation : violations(Files.readString(source, StandardCharsets.UTF_8))) {
                violations.add(root.relativize(source) + ": " + violation);
            }
        }
        assertThat(violations).as("a second duration parser: use io.ringbus.core.Durations (docs/core.md#durations)")
                .isEmpty();
    }

    @Test
    void theRulesCatchTheParsersDurationsReplaced() {
        // The server's config file parser.
        assertThat(violations("""
                private static final Pattern DURATION = Pattern.compile("(\\\\d+)(ms|s|m|h)");
                """)).hasSize(1);
        // The outbox CLI's converter: its regex, then ISO-8601.
        assertThat(violations("""
                class DurationConverter implements CommandLine.ITypeConverter<Duration> {
                    public Duration convert(String value) {
                        return Duration.parse(value.strip());
                    }
                }
                """)).hasSize(2);
        // The bench's converter: a switch on the suffix.
        assertThat(violations("""
                return switch (text.substring(unitAt)) {
                    case "ns" -> Duration.ofNanos(amount);
                    case "ms" -> Duration.ofMillis(amount);
                };
                """)).hasSize(2);
        assertThat(violations("if (text.endsWith(\"ms\")) { }")).hasSize(1);
        assertThat(violations("Pattern.compile(\"\\\\d+(?:s|min)\")")).hasSize(1);
    }

    @Test
    void theRulesLeaveDelegationSizesCommentsAndOutputAlone() {
        assertThat(violations("""
                /** Durations such as 500ms; see Duration.parse(CharSequence) and case "ms". */
                class HumanDurationConverter implements ITypeConverter<Duration> {
                    public Duration convert(String value) {
                        return Durations.parse(value); // not Duration.parse("PT1S")
                    }
                }
                """)).isEmpty();
        assertThat(violations("""
                switch (m.group(2)) { case "k" -> n << 10; case "m" -> n << 20; default -> n; }
                String label = String.format("%s ms", ms) + " (min)" + "http://host/path";
                long least = Math.min(min, max);
                """)).isEmpty();
    }

    /** @return what in {@code source} breaks the rules, one line each */
    private static List<String> violations(String source) {
        List<String> literals = new ArrayList<>();
        String code = withoutComments(source, literals);
        List<String> found = new ArrayList<>();
        ISO_PARSE.matcher(code).results().forEach(m -> found.add("calls " + m.group()));
        UNIT_LABEL.matcher(code).results().forEach(m -> found.add("matches a unit suffix: " + m.group()));
        for (String literal : literals) {
            if (UNIT_ALTERNATION.matcher(literal).find()) {
                found.add("holds a unit-suffix regex: \"" + literal + "\"");
            }
        }
        if (DURATION_CONVERTER.matcher(code).find() && !code.contains("Durations.parse(")) {
            found.add("converts durations without Durations.parse");
        }
        return found;
    }

    /**
     * Drops comments (line, block, javadoc) and collects string literals (text blocks included)
     * as they stand in the source; literals stay in the code returned, so that {@code case "ms"}
     * remains visible.
     */
    private static String withoutComments(String source, List<String> literals) {
        StringBuilder code = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (source.startsWith("//", i)) {
                int end = source.indexOf('\n', i);
                i = end < 0 ? n : end;
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                code.append(' ');
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end + 3;
                literals.add(source.substring(i + 3, Math.max(i + 3, end - 3)));
                code.append(source, i, end);
                i = end;
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < n && source.charAt(end) != c && source.charAt(end) != '\n') {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(end + 1, n);
                if (c == '"') {
                    literals.add(source.substring(i + 1, end - 1));
                }
                code.append(source, i, end);
                i = end;
            } else {
                code.append(c);
                i++;
            }
        }
        return code.toString();
    }

    private static List<Path> mainSources(Path root) throws IOException {
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(p -> p.getFileName().toString().startsWith("ringbus-")).toList()) {
                Path main = module.resolve("src/main/java");
                if (Files.isDirectory(main)) {
                    try (Stream<Path> files = Files.walk(main)) {
                        files.filter(p -> p.toString().endsWith(".java")).forEach(sources::add);
                    }
                }
            }
        }
        return sources;
    }

    /** The directory holding ringbus-core, found from the test's working directory upwards. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("ringbus-core/src/main/java"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new UncheckedIOException(new IOException("no ringbus-core above " + Path.of("").toAbsolutePath()));
        }
        return dir;
    }
}
