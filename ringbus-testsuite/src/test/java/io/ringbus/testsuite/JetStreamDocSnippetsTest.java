package io.ringbus.testsuite;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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

    @Test
    void everyJavaBlockOfTheDocIsARegionOfTheExamplesTest() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        String doc = Files.readString(root.resolve(DOC), StandardCharsets.UTF_8);
        String examples = Files.readString(root.resolve(EXAMPLES), StandardCharsets.UTF_8);
        List<String> regions = DocSnippets.regions(examples);
        List<String> blocks = DocSnippets.javaBlocks(doc);
        assertThat(regions).as("regions of %s", EXAMPLES).hasSize(3);
        assertThat(blocks).as("java blocks of %s", DOC).hasSize(3);
        assertThat(regions).as("every java block of %s is a region of %s", DOC, EXAMPLES).containsAll(blocks);
    }
}
