package io.ringbus.testsuite;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The doc-snippet tests' one reading of a page and of the test that runs its examples: the page's
 * {@code java} blocks and the test's {@code --8<--} regions, each without its indentation.
 */
final class DocSnippets {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern REGION = Pattern.compile(
            "// --8<-- \\[start:([a-z]+)]\\n(.*?)\\n[ \\t]*// --8<-- \\[end:\\1]", Pattern.DOTALL);

    private DocSnippets() {
    }

    /**
     * @param doc     a Markdown page
     * @param heading a heading line's start, e.g. {@code "## Exactly once"}
     * @return the page from that heading to the next second-level heading (or the end)
     * @throws IllegalArgumentException naming the heading when the page has none such
     */
    static String section(String doc, String heading) {
        int start = doc.indexOf(heading);
        if (start < 0) {
            throw new IllegalArgumentException("no section " + heading + " in the page");
        }
        int end = doc.indexOf("\n## ", start + heading.length());
        return doc.substring(start, end < 0 ? doc.length() : end);
    }

    /** @return the {@code java} blocks of a Markdown page */
    static List<String> javaBlocks(String doc) {
        return matches(JAVA_BLOCK.matcher(doc), 1);
    }

    /** @return the {@code --8<--} regions of a source file */
    static List<String> regions(String source) {
        return matches(REGION.matcher(source), 2);
    }

    private static List<String> matches(Matcher matcher, int group) {
        List<String> found = new ArrayList<>();
        while (matcher.find()) {
            found.add(matcher.group(group).stripIndent().strip());
        }
        return found;
    }
}
