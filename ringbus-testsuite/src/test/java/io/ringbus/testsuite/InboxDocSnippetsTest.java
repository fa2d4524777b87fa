package io.ringbus.testsuite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/outbox.md's section "Exactly once: the inbox" shows only compiled code: every {@code java}
 * block in it is one of the {@code --8<--} regions of InboxExampleTest (indentation aside), which
 * runs them against H2, a ringbus broker and NATS JetStream.
 */
class InboxDocSnippetsTest {
    private static final Path DOC = Path.of("docs", "outbox.md");
    private static final Path EXAMPLES = Path.of("ringbus-outbox", "src", "test", "java", "io", "ringbus", "outbox",
            "examples", "InboxExampleTest.java");
    private static final String SECTION = "## Exactly once: the inbox";

    @Test
    void everyJavaBlockOfTheInboxSectionIsARegionOfTheExamplesTest() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        String section = DocSnippets.section(Files.readString(root.resolve(DOC), StandardCharsets.UTF_8), SECTION);
        List<String> regions = DocSnippets.regions(Files.readString(root.resolve(EXAMPLES), StandardCharsets.UTF_8));
        List<String> blocks = DocSnippets.javaBlocks(section);
        assertThat(regions).as("regions of %s", EXAMPLES).hasSize(2);
        assertThat(blocks).as("java blocks of %s", SECTION).hasSize(2);
        assertThat(regions).as("every java block of the section is a region of %s", EXAMPLES).containsAll(blocks);
    }
}
