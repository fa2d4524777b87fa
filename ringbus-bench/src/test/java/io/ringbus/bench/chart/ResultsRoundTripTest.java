package io.ringbus.bench.chart;

import com.fasterxml.jackson.databind.JsonNode;
import io.ringbus.bench.ResultsJson;
import io.ringbus.bench.jmh.JmhRun;
import io.ringbus.bench.network.NetworkResults;
import io.ringbus.bench.seed.SeedResults;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every committed results file is its record: it reads into the record and writes back as the
 * same JSON, so the writers, the charts and {@code bench-results/} cannot drift apart.
 */
class ResultsRoundTripTest {
    /** The committed results, relative to the module directory that Surefire runs in. */
    private static final Path BENCH_RESULTS = Path.of("..", "bench-results");

    @Test
    void everyCommittedResultReadsIntoItsRecordAndWritesBackTheSame() throws Exception {
        List<String> checked = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(BENCH_RESULTS, "*.json")) {
            for (Path json : files) {
                String text = Files.readString(json, StandardCharsets.UTF_8);
                Object document = ResultCharts.read(text);
                // JMH's file is an array of runs; ours are records named for their scenario
                Object written = document instanceof List<?> runs ? runs.toArray(JmhRun[]::new) : document;
                JsonNode back = ResultsJson.tree(ResultsJson.write(written));

                assertThat(back).as(json + " written back from " + document.getClass().getSimpleName())
                        .isEqualTo(ResultsJson.tree(text));
                if (!(document instanceof List<?>)) {
                    assertThat(ResultsJson.write(written)).as(json + " in the writer's own format").isEqualTo(text);
                }
                checked.add(json.getFileName().toString());
            }
        }
        assertThat(checked).contains("seed.json", "blocking.json", "network.json", "network-go.json", "overload.json",
                "subs.json", "soak.json", "outbox.json", "jmh.json", "jetstream.json");
    }

    @Test
    void aRenamedMemberFailsTheReadInsteadOfEmptyingAChart() throws Exception {
        String seed = Files.readString(BENCH_RESULTS.resolve("seed.json"), StandardCharsets.UTF_8);
        String renamed = seed.replace("\"millionDispatchesPerSecond\"", "\"millionDispatchesPerSec\"");

        assertThat(ResultCharts.read(seed)).isInstanceOf(SeedResults.class);
        assertThatThrownBy(() -> ResultCharts.read(renamed)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("millionDispatchesPerSec").hasMessageContaining("SeedResults");
    }

    @Test
    void nonFiniteNumbersAreWrittenAsNullAndReadBackAsNan() {
        NetworkResults.Run run = new NetworkResults.Run(Double.NaN, 2.5);

        String json = ResultsJson.write(run);

        assertThat(json).isEqualTo("{\n  \"publishMs\": null,\n  \"deliverMs\": 2.5\n}\n");
        assertThat(ResultsJson.read(json, NetworkResults.Run.class).publishMs()).isNaN();
    }
}
