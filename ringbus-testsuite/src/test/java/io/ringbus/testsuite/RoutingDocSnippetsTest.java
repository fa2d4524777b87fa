package io.ringbus.testsuite;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/routing.md shows only compiled code: every {@code java} block in it is one of the
 * {@code --8<--} regions of RoutingDocExamplesTest (indentation aside), and every policy in its
 * operator table is a row that test checks.
 */
class RoutingDocSnippetsTest {
    private static final Path DOC = Path.of("docs", "routing.md");
    private static final Path EXAMPLES = Path.of("ringbus-core", "src", "test", "java", "io", "ringbus", "core",
            "examples", "RoutingDocExamplesTest.java");
    private static final Pattern TABLE_POLICY = Pattern.compile("^\\| [^|]+ \\| `(\\{\"v\".*?)` \\|", Pattern.MULTILINE);

    @Test
    void everyJavaBlockOfTheDocIsARegionOfTheExamplesTest() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        String doc = Files.readString(root.resolve(DOC), StandardCharsets.UTF_8);
        String examples = Files.readString(root.resolve(EXAMPLES), StandardCharsets.UTF_8);
        List<String> regions = DocSnippets.regions(examples);
        List<String> blocks = DocSnippets.javaBlocks(doc);
        assertThat(regions).as("regions of %s", EXAMPLES).hasSizeGreaterThanOrEqualTo(5);
        assertThat(blocks).as("java blocks of %s", DOC).isNotEmpty();
        assertThat(regions).as("every java block of %s is a region of %s", DOC, EXAMPLES).containsAll(blocks);
    }

    @Test
    void everyPolicyOfTheOperatorTableIsChecked() throws IOException {
        Path root = DurationGrammarEnforcementTest.repositoryRoot();
        String doc = Files.readString(root.resolve(DOC), StandardCharsets.UTF_8);
        String examples = Files.readString(root.resolve(EXAMPLES), StandardCharsets.UTF_8);
        Matcher policy = TABLE_POLICY.matcher(doc);
        int rows = 0;
        while (policy.find()) {
            rows++;
            assertThat(examples).as("the operator table's policy %s is a row of %s", policy.group(1), EXAMPLES)
                    .contains("| " + policy.group(1) + " ");
        }
        assertThat(rows).as("operator table rows in %s", DOC).isGreaterThanOrEqualTo(10);
    }
}
