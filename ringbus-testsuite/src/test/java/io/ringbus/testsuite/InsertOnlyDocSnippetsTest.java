package io.ringbus.testsuite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/outbox.md's section "Insert-only layout" shows only code that runs: its {@code java} block
 * is the {@code --8<--} region of InsertOnlyRelayTest (indentation aside), which runs it.
 */
class InsertOnlyDocSnippetsTest {
    private static final Path DOC = Path.of("docs", "outbox.md");
    private static final Path TEST = Path.of("ringbus-outbox", "src", "test", "java", "io", "ringbus", "outbox",
            "InsertOnlyRelayTest.java");
    private static final String SECTION = "### Insert-only layout";

    @Test
    void theSectionsJavaBlockIsTheRegionTheTestRuns() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        String section = DocSnippets.section(Files.readString(root.resolve(DOC), StandardCharsets.UTF_8), SECTION);
        List<String> regions = DocSnippets.regions(Files.readString(root.resolve(TEST), StandardCharsets.UTF_8));
        assertThat(DocSnippets.javaBlocks(section)).as("java blocks of %s", SECTION).singleElement()
                .isIn(regions);
    }
}
