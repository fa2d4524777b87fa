package io.ringbus.bench.chart;

import io.ringbus.bench.BenchMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.ringbus.bench.chart.SvgBarChartTest.bars;
import static io.ringbus.bench.chart.SvgBarChartTest.parse;
import static io.ringbus.bench.chart.SvgBarChartTest.texts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ResultChartsTest {
    /** The committed results, relative to the module directory that Surefire runs in. */
    private static final Path BENCH_RESULTS = Path.of("..", "bench-results");

    private static final String SEED = """
            {"scenario": "seed", "jvm": {"vmName": "VM", "version": "21", "vendor": "V", "maxHeapMiB": 1024},
             "cores": 2, "waitStrategy": "YIELDING", "rounds": 3, "baseline": "disruptor-inline",
             "workload": {"producers": 4, "eventsPerProducer": 250000, "subjects": 5, "subscribersPerSubject": 4},
             "contenders": [
               {"name": "ringbus-event-loop", "millionDispatchesPerSecond": 75.0, "ratioToBaseline": 1.5},
               {"name": "disruptor-inline", "millionDispatchesPerSecond": 50.0, "ratioToBaseline": 1.0},
               {"name": "lock-queue", "millionDispatchesPerSecond": 5.0, "ratioToBaseline": 0.1}]}
            """;

    @Test
    void seedChartHasOneBarPerContenderAndTheRatioToTheBaseline() throws Exception {
        Document svg = parse(ResultCharts.chart(ResultCharts.read(SEED)).render());

        List<Element> bars = bars(svg);
        assertThat(bars).extracting(b -> b.getAttribute("data-value")).containsExactly("75.0", "50.0", "5.0");
        assertThat(width(bars.get(1)) / width(bars.get(0))).isCloseTo(50.0 / 75.0, within(1e-3));
        assertThat(texts(svg)).contains("ringbus-event-loop", "75 (1.50x disruptor-inline)", "disruptor-inline = 1x")
                .containsSubsequence("0.5x", "1x", "1.5x");
    }

    @Test
    void outboxChartHasFloorRatiosLatencyWindowsAndHttpPanels() throws Exception {
        String outbox = """
                {"scenario": "outbox", "cores": 2, "payloadBytes": 128, "keys": 1000, "ringbusBatchSize": 1000,
                 "pollerBatchSize": 1000, "producerThreads": 8, "sustainedWindowSeconds": 10,
                 "floor": {"commitsPerSecond": 5000.0, "claimRowsPerSecond": 100000.0},
                 "producers": [{"contender": "ringbus relay x1", "commitsPerSecond": 4000.0, "verified": true,
                                "failure": null}],
                 "drain": [{"contender": "ringbus relay x1", "eventsPerSecond": 50000.0, "verified": true, "failure": null},
                           {"contender": "poller", "eventsPerSecond": 1000.0, "verified": false, "failure": "lost 3"}],
                 "sustained": [{"contender": "ringbus relay x1", "targetRate": 4500.0, "p50Micros": 2000,
                                "p99Micros": 9000, "verified": true, "failure": null,
                                "windows": [{"startSeconds": 0, "p99Micros": 8000}, {"startSeconds": 10, "p99Micros": 9500}]}],
                 "http": [{"maxConcurrency": 300, "batchSize": 1000, "parallelBatches": 2, "events": 10000,
                           "latencyMillis": 50, "elapsedSeconds": 2.0, "idealSeconds": 1.6667, "ratioToIdeal": 1.2,
                           "verified": true, "failure": null}]}
                """;

        Document svg = parse(ResultCharts.chart(ResultCharts.read(outbox)).render());

        assertThat(bars(svg)).extracting(b -> b.getAttribute("data-value"))
                .containsExactly("5000.0", "4000.0", "100000.0", "50000.0", "2.0", "9.0", "8.0", "9.5", "2.0", "1.6667");
        assertThat(texts(svg)).contains("no result", "plain INSERT floor = 1x", "claim+delete floor = 1x", "from 10 s",
                "concurrency 300, batch 1,000 x2", "p50", "p99", "elapsed", "ideal")
                .anyMatch(t -> t.contains("0.80x floor")).anyMatch(t -> t.contains("0.50x floor"));
    }

    @Test
    void networkChartComparesServersPerCase() throws Exception {
        String network = """
                {"scenario": "network", "cores": 2, "comparison": {"runs": 3, "baseline": "nats-server", "servers": [
                   {"name": "ringbus-server", "cases": [{"case": "1->1 16 B", "verified": true,
                      "medianDeliveriesPerSecond": 1200000.0, "ratioToBaseline": 1.2}]},
                   {"name": "nats-server", "cases": [{"case": "1->1 16 B", "verified": true,
                      "medianDeliveriesPerSecond": 1000000.0, "ratioToBaseline": 1.0}]}]},
                 "overload": null}
                """;

        Document svg = parse(ResultCharts.chart(ResultCharts.read(network)).render());

        assertThat(bars(svg)).extracting(b -> b.getAttribute("data-series")).containsExactly("ringbus-server", "nats-server");
        assertThat(texts(svg)).contains("1.2M (1.20x nats-server)");
    }

    @Test
    void rejectsDocumentsThatAreNoResult() {
        assertThatThrownBy(() -> ResultCharts.chart(ResultCharts.read("{\"scenario\": \"other\"}")))
                .hasMessageContaining("scenario=other");
        assertThatThrownBy(() -> ResultCharts.chart(ResultCharts.read("[1]"))).hasMessageContaining("not a JMH result");
        assertThatThrownBy(() -> ResultCharts.chart(ResultCharts.read("{\"scenario\": \"seed\", \"contenders\": []}")))
                .hasMessageContaining("no rows");
    }

    @Test
    void svgGoesBesideTheJson() {
        assertThat(ResultCharts.svgPathFor(Path.of("a", "seed.json"))).isEqualTo(Path.of("a", "seed.svg"));
        assertThat(ResultCharts.svgPathFor(Path.of("results"))).isEqualTo(Path.of("results.svg"));
    }

    @Test
    void chartCommandDrawsEachFileAndFailsOnABadOne(@TempDir Path dir) throws Exception {
        Path seed = Files.writeString(dir.resolve("seed.json"), SEED);
        Path bad = Files.writeString(dir.resolve("bad.json"), "{\"scenario\": ");

        assertThat(BenchMain.run("chart", seed.toString())).isZero();
        assertThat(bars(parse(Files.readString(dir.resolve("seed.svg"))))).hasSize(3);
        assertThat(BenchMain.run("chart", seed.toString(), bad.toString())).isEqualTo(1);
        assertThat(BenchMain.run("chart", dir.resolve("missing.json").toString())).isEqualTo(1);
        assertThat(dir.resolve("bad.svg")).doesNotExist();
    }

    /** A committed results JSON and its committed chart must agree: rerun {@code bin/bench chart} when one changes. */
    @Test
    void committedChartsAreDrawnFromTheCommittedResults() throws Exception {
        assertThat(BENCH_RESULTS.resolve("seed.json")).exists();
        int checked = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(BENCH_RESULTS, "*.json")) {
            for (Path json : files) {
                Path svg = ResultCharts.svgPathFor(json);
                assertThat(svg).as("chart of " + json + " (bin/bench chart " + json.getFileName() + ")").exists();
                String expected = ResultCharts.chart(ResultCharts.read(Files.readString(json, StandardCharsets.UTF_8))).render();
                assertThat(Files.readString(svg, StandardCharsets.UTF_8)).as(svg + " is stale: bin/bench chart bench-results/*.json")
                        .isEqualTo(expected);
                checked++;
            }
        }
        assertThat(checked).isGreaterThanOrEqualTo(4);
    }

    private static double width(Element bar) {
        return Double.parseDouble(bar.getAttribute("width"));
    }
}
