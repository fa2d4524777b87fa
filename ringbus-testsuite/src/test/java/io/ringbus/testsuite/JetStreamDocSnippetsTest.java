package io.ringbus.testsuite;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/jetstream.md shows only compiled code: every {@code java} block in it is one of the
 * {@code --8<--} regions of ringbus-jetstream's JetStreamDocExamplesTest (indentation aside), which
 * runs them with jnats against ringbus-server.
 */
class JetStreamDocSnippetsTest {
    private static final Path DOC = Path.of("docs", "jetstream.md");
    private static final Path EXAMPLES = Path.of("ringbus-jetstream", "src", "test", "java", "io", "ringbus",
            "jetstream", "JetStreamDocExamplesTest.java");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern REGION = Pattern.compile(
            "// --8<-- \\[start:([a-z]+)]\\n(.*?)\\n[ \\t]*// --8<-- \\[end:\\1]", Pattern.DOTALL);

    @Test
    void everyJavaBlockOfTheDocIsARegionOfTheExamplesTest() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        String doc = Files.readString(root.resolve(DOC), StandardCharsets.UTF_8);
        String examples = Files.readString(root.resolve(EXAMPLES), StandardCharsets.UTF_8);
        List<String> regions = new ArrayList<>();
        Matcher region = REGION.matcher(examples);
        while (region.find()) {
            regions.add(region.group(2).stripIndent().strip());
        }
        List<String> blocks = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(doc);
        while (block.find()) {
            blocks.add(block.group(1).stripIndent().strip());
        }
        assertThat(regions).as("regions of %s", EXAMPLES).hasSize(3);
        assertThat(blocks).as("java blocks of %s", DOC).hasSize(3);
        assertThat(regions).as("every java block of %s is a region of %s", DOC, EXAMPLES).containsAll(blocks);
    }
}
