package io.ringbus.testsuite.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Checks deploy/grafana/ringbus-dashboard.json against what Grafana's import needs (there is no
 * Grafana here): the model's invariants, the {@code ${DS_PROMETHEUS}} input, and queries that
 * name only series of the {@link MetricContract} with labels those series carry. When promtool is
 * installed ({@code bin/deploy-check} installs it), Prometheus' own parser checks every query.
 */
class GrafanaDashboardTest {
    static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "ringbus-dashboard.json");
    private static final Map<String, Object> DATASOURCE = Map.of("type", "prometheus", "uid", "${DS_PROMETHEUS}");
    private static final Set<String> GRAFANA_VARIABLES = Set.of("__rate_interval", "__interval", "__range");
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");

    private static Map<?, ?> dashboard;
    private static Map<String, Set<String>> contract;

    @BeforeAll
    static void read() throws Exception {
        // Grafana's format, not ours: read untyped, as Grafana's import does
        dashboard = new ObjectMapper().readValue(Files.readString(DASHBOARD, StandardCharsets.UTF_8), Map.class);
        contract = MetricContract.series();
    }

    @Test
    void isAnImportableDashboardModel() {
        assertThat(dashboard.get("id")).as("id must be null, or the import overwrites another dashboard").isNull();
        assertThat((String) dashboard.get("uid")).isNotBlank().hasSizeLessThanOrEqualTo(40).matches("[a-zA-Z0-9_-]+");
        assertThat((String) dashboard.get("title")).isNotBlank();
        assertThat(((Number) dashboard.get("schemaVersion")).doubleValue()).isBetween(36.0, 41.0);
        List<?> inputs = (List<?>) dashboard.get("__inputs");
        assertThat(inputs).singleElement().satisfies(i -> {
            Map<?, ?> input = (Map<?, ?>) i;
            assertThat(input.get("name")).isEqualTo("DS_PROMETHEUS");
            assertThat(input.get("type")).isEqualTo("datasource");
            assertThat(input.get("pluginId")).isEqualTo("prometheus");
        });
        Set<String> required = new HashSet<>();
        for (Object r : (List<?>) dashboard.get("__requires")) {
            required.add(((Map<?, ?>) r).get("type") + ":" + ((Map<?, ?>) r).get("id"));
        }
        assertThat(required).contains("grafana:grafana", "datasource:prometheus");
        for (Map<?, ?> panel : panels()) {
            if (!panel.get("type").equals("row")) {
                assertThat(required).as("__requires names the panel plugin").contains("panel:" + panel.get("type"));
            }
        }
    }

    @Test
    void panelsHaveUniqueIdsAndNonOverlappingGridPositions() {
        Set<Double> ids = new HashSet<>();
        Set<String> cells = new HashSet<>();
        for (Map<?, ?> panel : panels()) {
            String title = String.valueOf(panel.get("title"));
            assertThat(panel.get("id")).as(title).isInstanceOf(Number.class);
            assertThat(ids.add(((Number) panel.get("id")).doubleValue())).as("unique id: " + title).isTrue();
            Map<?, ?> pos = (Map<?, ?>) panel.get("gridPos");
            assertThat(pos).as("gridPos of " + title).isNotNull();
            int x = ((Number) pos.get("x")).intValue();
            int y = ((Number) pos.get("y")).intValue();
            int w = ((Number) pos.get("w")).intValue();
            int h = ((Number) pos.get("h")).intValue();
            assertThat(x).as(title).isBetween(0, 23);
            assertThat(w).as(title).isBetween(1, 24 - x);
            assertThat(h).as(title).isPositive();
            assertThat(y).as(title).isNotNegative();
            for (int dx = 0; dx < w; dx++) {
                for (int dy = 0; dy < h; dy++) {
                    assertThat(cells.add((x + dx) + "," + (y + dy))).as(title + " overlaps another panel").isTrue();
                }
            }
        }
        assertThat(ids).hasSizeGreaterThan(20);
    }

    @Test
    void everyDatasourceIsTheImportInput() {
        List<Map<?, ?>> found = new ArrayList<>();
        collectDatasources(dashboard, found);
        assertThat(found).isNotEmpty();
        for (Map<?, ?> ds : found) {
            if ("grafana".equals(ds.get("type"))) {
                assertThat(ds.get("uid")).as("Grafana's built-in annotations").isEqualTo("-- Grafana --");
            } else {
                assertThat(ds).isEqualTo(DATASOURCE);
            }
        }
        for (Map<?, ?> panel : panels()) {
            if (!panel.get("type").equals("row")) {
                assertThat(panel.get("datasource")).as(String.valueOf(panel.get("title"))).isEqualTo(DATASOURCE);
            }
        }
    }

    @Test
    void queriesNameOnlyContractSeriesWithTheirLabels() {
        Set<String> variables = new HashSet<>(GRAFANA_VARIABLES);
        for (Object v : (List<?>) ((Map<?, ?>) dashboard.get("templating")).get("list")) {
            variables.add((String) ((Map<?, ?>) v).get("name"));
        }
        assertThat(variables).contains("broker", "server");
        Set<String> used = new TreeSet<>();
        for (Map.Entry<String, String> q : queries().entrySet()) {
            PromQuery query = PromQuery.of(q.getValue());
            assertThat(query.metrics()).as(q.getKey()).isNotEmpty();
            Set<String> available = new HashSet<>(MetricContract.TARGET_LABELS);
            for (String metric : query.metrics()) {
                assertThat(contract).as(q.getKey() + ": " + metric + " is no series of the contract").containsKey(metric);
                available.addAll(contract.get(metric));
                used.add(metric);
            }
            assertThat(available).as(q.getKey() + ": labels").containsAll(query.labels());
            assertThat(variables).as(q.getKey() + ": variables").containsAll(query.variables());
            if (query.functions().contains("histogram_quantile")) {
                assertThat(query.metrics()).as(q.getKey()).allMatch(m -> m.endsWith("_bucket"));
                assertThat(query.grouping()).as(q.getKey() + ": histogram_quantile needs le").contains("le");
            }
        }
        // every meter of the contract is on the dashboard
        for (String name : contract.keySet()) {
            if (name.startsWith("ringbus_") && !name.endsWith("_max") && !name.endsWith("_count")
                    && !name.endsWith("_sum")) {
                assertThat(used).as("a panel shows " + name).contains(name);
            }
        }
    }

    @Test
    void legendsNameLabelsTheQueryKeeps() {
        for (Map<?, ?> panel : panels()) {
            for (Object t : targets(panel)) {
                Map<?, ?> target = (Map<?, ?>) t;
                PromQuery query = PromQuery.of((String) target.get("expr"));
                Set<String> kept = new HashSet<>(query.grouping());
                if (kept.isEmpty() && !query.functions().contains("sum") && !query.functions().contains("max")) {
                    query.metrics().forEach(m -> kept.addAll(contract.get(m)));
                    kept.addAll(MetricContract.TARGET_LABELS);
                }
                Matcher m = LEGEND_LABEL.matcher(String.valueOf(target.get("legendFormat")));
                while (m.find()) {
                    assertThat(kept).as(panel.get("title") + " legend " + target.get("legendFormat")).contains(m.group(1));
                }
            }
        }
    }

    @Test
    void variablesQueryContractLabels() {
        Pattern labelValues = Pattern.compile("label_values\\((\\w+),\\s*(\\w+)\\)");
        for (Object v : (List<?>) ((Map<?, ?>) dashboard.get("templating")).get("list")) {
            Map<?, ?> variable = (Map<?, ?>) v;
            assertThat(variable.get("datasource")).isEqualTo(DATASOURCE);
            String query = (String) ((Map<?, ?>) variable.get("query")).get("query");
            Matcher m = labelValues.matcher(query);
            assertThat(m.matches()).as(query).isTrue();
            assertThat(contract).containsKey(m.group(1));
            Set<String> labels = new HashSet<>(contract.get(m.group(1)));
            labels.addAll(MetricContract.TARGET_LABELS);
            assertThat(labels).contains(m.group(2));
        }
    }

    @Test
    void queryReaderRejectsUnbalancedExpressions() {
        assertThatThrownBy(() -> PromQuery.of("sum(rate(x[1m])")).hasMessageContaining("unclosed");
        assertThatThrownBy(() -> PromQuery.of("x{a=\"b\"]")).hasMessageContaining("unbalanced");
        PromQuery q = PromQuery.of("sum by (le, mode) (rate(m_bucket{broker=~\"$broker\", x=\"}\"}[$__rate_interval])) or vector(0)");
        assertThat(q.metrics()).containsExactly("m_bucket");
        assertThat(q.labels()).containsExactlyInAnyOrder("broker", "x", "le", "mode");
        assertThat(q.variables()).containsExactlyInAnyOrder("broker", "__rate_interval");
        assertThat(q.functions()).containsExactlyInAnyOrder("sum", "rate", "vector");
    }

    /** Prometheus' own parser, through promtool: every query as a recording rule, variables filled in. */
    @Test
    void promtoolParsesEveryQuery(@TempDir Path dir) throws Exception {
        Path promtool = Path.of("/usr/bin/promtool");
        assumeThat(Files.isExecutable(promtool)).as("promtool is installed (bin/deploy-check installs it)").isTrue();
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int n = 0;
        for (String expr : queries().values()) {
            String filled = expr.replace("$__rate_interval", "1m").replaceAll("\\$\\{?\\w+}?", ".*");
            rules.append("      - record: dashboard:query").append(n++).append("\n        expr: '")
                    .append(filled.replace("'", "''")).append("'\n");
        }
        Path file = Files.writeString(dir.resolve("dashboard-rules.yml"), rules);
        Process p = new ProcessBuilder(promtool.toString(), "check", "rules", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("SUCCESS: " + n + " rules found");
    }

    private static Map<String, String> queries() {
        Map<String, String> queries = new LinkedHashMap<>();
        for (Map<?, ?> panel : panels()) {
            List<?> targets = targets(panel);
            if (panel.get("type").equals("row")) {
                continue;
            }
            assertThat(targets).as(String.valueOf(panel.get("title"))).isNotEmpty();
            Set<Object> refIds = new HashSet<>();
            for (Object t : targets) {
                Map<?, ?> target = (Map<?, ?>) t;
                assertThat(refIds.add(target.get("refId"))).as("unique refId in " + panel.get("title")).isTrue();
                assertThat(target.get("datasource")).isEqualTo(DATASOURCE);
                queries.put(panel.get("title") + " " + target.get("refId"), (String) target.get("expr"));
            }
        }
        return queries;
    }

    private static List<?> targets(Map<?, ?> panel) {
        Object targets = panel.get("targets");
        return targets == null ? List.of() : (List<?>) targets;
    }

    /** @return the top-level panels and those inside collapsed rows */
    private static List<Map<?, ?>> panels() {
        List<Map<?, ?>> all = new ArrayList<>();
        for (Object p : (List<?>) dashboard.get("panels")) {
            Map<?, ?> panel = (Map<?, ?>) p;
            all.add(panel);
            if (panel.get("panels") instanceof List<?> nested) {
                nested.forEach(n -> all.add((Map<?, ?>) n));
            }
        }
        return all;
    }

    private static void collectDatasources(Object node, List<Map<?, ?>> found) {
        if (node instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                if ("datasource".equals(k) && v instanceof Map<?, ?> ds) {
                    found.add(ds);
                } else if ("datasource".equals(k)) {
                    throw new AssertionError("a datasource must be an object with the input's uid: datasource=" + v);
                } else {
                    collectDatasources(v, found);
                }
            });
        } else if (node instanceof List<?> list) {
            list.forEach(e -> collectDatasources(e, found));
        }
    }
}
