package io.ringbus.jetstream;

import io.ringbus.core.Broker;
import io.ringbus.server.ServerConfig;
import io.ringbus.server.internal.ConfigFile;
import io.ringbus.server.internal.ConfigReference;
import io.ringbus.server.internal.FederationSettings;
import io.ringbus.server.internal.StorageSettings;
import io.ringbus.server.spi.ServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * docs/configuration.md and deploy/ringbus.properties are what {@link ConfigReference} writes from
 * the code that reads the keys, every line of the sample is accepted by the parser, its defaults
 * are the server's, and every configuration example in the docs parses. Run with
 * {@code -Dringbus.regenerate=true} to rewrite both files after changing a key.
 */
class ConfigReferenceTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path REFERENCE = ROOT.resolve("docs/configuration.md");
    private static final Path SAMPLE = ROOT.resolve("deploy/ringbus.properties");
    /** A commented-out key of the sample: {@code #key = value}. */
    private static final Pattern SAMPLE_KEY = Pattern.compile("^#(\\S+) = (.*)$", Pattern.MULTILINE);
    private static final Pattern PROPERTIES_BLOCK = Pattern.compile("```properties\\n(.*?)```", Pattern.DOTALL);

    @TempDir
    Path dir;

    private static List<ServerExtension> extensions() {
        List<ServerExtension> found = new ArrayList<>();
        ServiceLoader.load(ServerExtension.class).forEach(found::add);
        return found;
    }

    @Test
    void theReferenceAndTheSampleAreWhatTheCodeSays() throws IOException {
        List<ServerExtension> extensions = extensions();
        assertThat(extensions).extracting(ServerExtension::name).contains("jetstream");
        String reference = ConfigReference.markdown(extensions);
        String sample = ConfigReference.sample(extensions);
        if (Boolean.getBoolean("ringbus.regenerate")) {
            Files.writeString(REFERENCE, reference);
            Files.writeString(SAMPLE, sample);
        }
        assertThat(Files.readString(REFERENCE)).as("docs/configuration.md is stale: run this test with "
                + "-Dringbus.regenerate=true").isEqualTo(reference);
        assertThat(Files.readString(SAMPLE)).as("deploy/ringbus.properties is stale: run this test with "
                + "-Dringbus.regenerate=true").isEqualTo(sample);
        // Every key the parser takes is in both: a key the table lacks would be refused, not applied.
        for (var key : ConfigFile.keys()) {
            assertThat(reference).contains("| `" + key.getValue().name().replace("|", "\\|") + "` |");
        }
        assertThat(reference).contains("| `jetstream.max_streams` |").contains("| `duplicate_window_bytes` |");
    }

    @Test
    void everyLineOfTheSampleIsAcceptedWhenUncommented() throws IOException {
        String sample = ConfigReference.sample(extensions());
        StringBuilder uncommented = new StringBuilder();
        Matcher m = SAMPLE_KEY.matcher(sample);
        int keys = 0;
        while (m.find()) {
            uncommented.append(m.group(1)).append(" = ").append(m.group(2)).append("   # trailing comment\n");
            keys++;
        }
        assertThat(keys).isGreaterThan(60);
        Path file = dir.resolve("all.properties");
        Files.writeString(file, uncommented);
        ServerConfig.Builder server = ServerConfig.builder().extension(new JetStreamExtension());
        StorageSettings storage = new StorageSettings();
        var subjects = ConfigFile.apply(file, server, Broker.builder(), storage, new FederationSettings());
        assertThat(subjects).containsKey("orders.>");
        assertThat(storage.durables()).hasSize(1);
        assertThat(server.build().extensionSettings("jetstream").entries()).containsKeys("enabled", "max_subjects");
    }

    /** The defaults the sample writes are the server's: applying them changes nothing. */
    @Test
    void theSamplesDefaultsAreTheServersDefaults() throws Exception {
        String sample = ConfigReference.sample(extensions());
        StringBuilder defaults = new StringBuilder();
        for (String line : sample.split("\n")) {
            Matcher m = SAMPLE_KEY.matcher(line);
            // keys with a written default are followed by nothing else: examples are for keys without one
            if (m.matches() && isDefaultLine(sample, line)) {
                defaults.append(m.group(1)).append('=').append(m.group(2)).append('\n');
            }
        }
        assertThat(defaults).contains("port=4222\n").contains("max_payload=1m\n").contains("broker.ring_size=65536\n");
        Path file = dir.resolve("defaults.properties");
        Files.writeString(file, defaults);
        ServerConfig.Builder configured = ServerConfig.builder().extension(new JetStreamExtension());
        ConfigFile.apply(file, configured, Broker.builder(), new StorageSettings(), new FederationSettings());
        ServerConfig plain = ServerConfig.builder().build();
        ServerConfig applied = configured.build();
        int compared = 0;
        for (Method getter : ServerConfig.class.getMethods()) {
            if (getter.getParameterCount() == 0 && !Modifier.isStatic(getter.getModifiers())
                    && getter.getDeclaringClass() == ServerConfig.class && simple(getter.getReturnType())) {
                assertThat(getter.invoke(applied)).as(getter.getName()).isEqualTo(getter.invoke(plain));
                compared++;
            }
        }
        assertThat(compared).isGreaterThan(20);
        assertThat(JetStreamSettings.from(applied.extensionSettings("jetstream"))).isEqualTo(JetStreamSettings.defaults());
    }

    /** Every properties example of the docs (Spring Boot's application.properties aside) is a valid configuration. */
    @Test
    void everyConfigurationExampleInTheDocsParses() throws IOException {
        List<Path> pages;
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            pages = new ArrayList<>(docs.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> !p.getFileName().toString().equals("spring.md")).sorted().toList());
        }
        pages.add(ROOT.resolve("README.md"));
        int examples = 0;
        for (Path page : pages) {
            Matcher m = PROPERTIES_BLOCK.matcher(Files.readString(page, StandardCharsets.UTF_8));
            while (m.find()) {
                Path file = dir.resolve("example-" + examples++ + ".properties");
                Files.writeString(file, m.group(1));
                assertThatCode(() -> ConfigFile.apply(file, ServerConfig.builder().extension(new JetStreamExtension()),
                        Broker.builder(), new StorageSettings(), new FederationSettings()))
                        .as(page.getFileName() + " example:\n" + m.group(1)).doesNotThrowAnyException();
            }
        }
        assertThat(examples).isGreaterThanOrEqualTo(2);
    }

    private static boolean isDefaultLine(String sample, String line) {
        // a key with a computed default or none says "Default: ..." in the comment line above its example
        int at = sample.indexOf("\n" + line + "\n");
        int previous = sample.lastIndexOf('\n', at - 1);
        String comment = sample.substring(previous + 1, at);
        return !comment.contains("Default:");
    }

    private static boolean simple(Class<?> type) {
        return type.isPrimitive() || type == String.class || type == java.time.Duration.class || type.isEnum()
                || type == Path.class;
    }
}
