package io.ringbus.testsuite.deploy;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a dashboard's PromQL expression refers to: metric names, label names (in matchers and in
 * {@code by}/{@code without}/{@code on}/{@code ignoring}) and Grafana variables. A reader for the
 * dashboard test, not a PromQL parser: it trusts the syntax to promtool and checks only that
 * quotes and brackets balance.
 *
 * @param metrics   series names
 * @param labels    label names matched on or grouped by
 * @param grouping  label names of {@code by (...)} clauses, which alone survive an aggregation
 * @param variables Grafana variables, {@code $x} or {@code ${x}}, without the {@code $}
 * @param functions functions called
 */
record PromQuery(Set<String> metrics, Set<String> labels, Set<String> grouping, Set<String> variables,
                 Set<String> functions) {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?(\\w+)}?");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
    private static final Pattern MATCHERS = Pattern.compile("\\{([^}]*)}");
    private static final Pattern MATCHER_LABEL = Pattern.compile("([a-zA-Z_]\\w*)\\s*(?:=~|!~|!=|=)");
    private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPING = Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.])([a-zA-Z_:][\\w:]*)(\\s*\\()?");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "inf", "nan");

    /**
     * @param expr a dashboard query
     * @return what it refers to
     * @throws IllegalArgumentException when its quotes or brackets do not balance
     */
    static PromQuery of(String expr) {
        checkBalance(expr);
        Set<String> variables = new LinkedHashSet<>();
        Matcher v = VARIABLE.matcher(expr);
        while (v.find()) {
            variables.add(v.group(1));
        }
        String rest = STRING.matcher(expr).replaceAll("\"\"");
        Set<String> labels = new LinkedHashSet<>();
        Matcher m = MATCHERS.matcher(rest);
        while (m.find()) {
            Matcher l = MATCHER_LABEL.matcher(m.group(1));
            while (l.find()) {
                labels.add(l.group(1));
            }
        }
        rest = MATCHERS.matcher(rest).replaceAll(" ");
        rest = RANGE.matcher(rest).replaceAll(" ");
        Set<String> grouping = new LinkedHashSet<>();
        Matcher g = GROUPING.matcher(rest);
        while (g.find()) {
            for (String label : g.group(2).split(",")) {
                if (!label.isBlank()) {
                    labels.add(label.trim());
                    if (g.group(1).equals("by")) {
                        grouping.add(label.trim());
                    }
                }
            }
        }
        rest = GROUPING.matcher(rest).replaceAll(" ");
        Set<String> metrics = new LinkedHashSet<>();
        Set<String> functions = new LinkedHashSet<>();
        Matcher id = IDENTIFIER.matcher(rest);
        while (id.find()) {
            if (id.group(2) != null) {
                functions.add(id.group(1));
            } else if (!KEYWORDS.contains(id.group(1))) {
                metrics.add(id.group(1));
            }
        }
        return new PromQuery(metrics, labels, grouping, variables, functions);
    }

    private static void checkBalance(String expr) {
        Deque<Character> open = new ArrayDeque<>();
        char quote = 0;
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            switch (c) {
                case '"', '\'', '`' -> quote = c;
                case '(', '[', '{' -> open.push(c);
                case ')', ']', '}' -> {
                    char want = c == ')' ? '(' : c == ']' ? '[' : '{';
                    if (open.isEmpty() || open.pop() != want) {
                        throw new IllegalArgumentException("unbalanced '" + c + "' at " + i + ": expr=" + expr);
                    }
                }
                default -> {
                }
            }
        }
        if (quote != 0 || !open.isEmpty()) {
            throw new IllegalArgumentException("unclosed " + (quote != 0 ? "quote" : "'" + open.peek() + "'") + ": expr=" + expr);
        }
    }
}
