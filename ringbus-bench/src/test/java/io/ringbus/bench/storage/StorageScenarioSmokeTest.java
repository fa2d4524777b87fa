package io.ringbus.bench.storage;

import io.ringbus.bench.BenchMain;
import io.ringbus.bench.ResultsJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the storage scenario at toy size (a few thousand records, 200 ms per publish run) against
 * a private nats-server with jsload when Go, nats.go and nats-server are installed, ringbus alone
 * otherwise, so that a broken run, count, ratio or chart fails the build. No speed is asserted.
 */
class StorageScenarioSmokeTest {
    private static final int RECORDS = 3_000;

    @Test
    void everyPartRunsReadsEveryRecordAndWritesItsDocumentAndChart(@TempDir Path dir) throws Exception {
        boolean peer = JsLoad.missing() == null && JetStreamServer.locate(null) != null;
        Path json = dir.resolve("storage.json");
        List<String> args = new ArrayList<>(List.of("storage", "--records", Integer.toString(RECORDS), "--sizes", "128",
                "--publishers", "1", "--duration", "200ms", "--warmup", "50ms", "--restart-mib", "1", "--restart-runs",
                "1", "--fsyncs", "20", "--dir", dir.toString(), "--timeout", "30s", "--json", json.toString()));
        if (!peer) {
            args.add("--no-jetstream");
        }

        int exit = BenchMain.run(args.toArray(String[]::new));

        assertThat(exit).isZero();
        String text = Files.readString(json, StandardCharsets.UTF_8);
        StorageResults doc = ResultsJson.read(text, StorageResults.class);
        assertThat(ResultsJson.tree(ResultsJson.write(doc))).as("round trip").isEqualTo(ResultsJson.tree(text));
        assertThat(doc.fsync().perSecond()).isPositive();
        // 2 modes x (3 policies + the peer)
        assertThat(doc.publish()).hasSize(peer ? 8 : 6);
        assertThat(doc.publish()).allSatisfy(r -> {
            assertThat(r.failure()).isNull();
            assertThat(r.messages()).as(r.system() + " " + r.policy() + " " + r.mode()).isPositive();
            assertThat(r.p99Micros()).isGreaterThanOrEqualTo(r.p50Micros());
        });
        assertThat(doc.publish()).filteredOn(r -> r.system().equals("ringbus"))
                .allSatisfy(r -> assertThat(Double.isNaN(r.ratioToJetStream())).isEqualTo(!peer));
        assertThat(doc.read()).hasSize(peer ? 5 : 3).allSatisfy(r -> {
            assertThat(r.failure()).isNull();
            assertThat(r.messages()).as(r.system() + " " + r.reader()).isEqualTo(RECORDS);
        });
        assertThat(doc.restart()).hasSize(peer ? 2 : 1).allSatisfy(r -> {
            assertThat(r.failure()).isNull();
            assertThat(r.records()).isEqualTo(doc.restart().getFirst().records());
            assertThat(r.firstRecordMillis()).isPositive();
        });
        assertThat(doc.restart().getFirst().logBytes()).as("ringbus's log").isGreaterThanOrEqualTo(1L << 20);
        assertThat(doc.goals()).extracting(StorageResults.GoalRow::goal).hasSize(7);
        assertThat(doc.recovery()).as("recovery runs only when named").isEmpty();
        String svg = Files.readString(dir.resolve("storage.svg"), StandardCharsets.UTF_8);
        assertThat(svg).contains("ringbus ALWAYS").contains("records/s");
        try (var leftovers = Files.list(dir)) {
            assertThat(leftovers.map(p -> p.getFileName().toString())).as("stores deleted")
                    .containsExactlyInAnyOrder("storage.json", "storage.svg");
        }
    }

    @Test
    void ringbusRowsAreDividedByThePeersRunOfTheSameCase() {
        StorageResults.PublishRow peer = new StorageResults.PublishRow("jetstream", JetStreamPeer.POLICY, "async", 128, 1,
                100, 1, 100_000, 10, 20, 30, Double.NaN, null);
        StorageResults.PublishRow other = new StorageResults.PublishRow("jetstream", JetStreamPeer.POLICY, "async", 128,
                4, 100, 1, 400_000, 10, 20, 30, Double.NaN, null);
        StorageResults.PublishRow ringbus = new StorageResults.PublishRow("ringbus", "OS", "async", 128, 1, 100, 1,
                250_000, 1, 2, 3, Double.NaN, null);
        StorageResults.ReadRow replay = new StorageResults.ReadRow("replay", "ringbus", "durable consumer, fetch 1000",
                10, 1, 6_000_000, Double.NaN, null);
        StorageResults.ReadRow peerReplay = new StorageResults.ReadRow("replay", "jetstream", "ordered consumer", 10, 1,
                3_000_000, Double.NaN, null);

        StorageReport report = new StorageReport(null, List.of(peer, other, ringbus), List.of(replay, peerReplay),
                List.of(), List.of(), List.of("OS"));

        StorageResults doc = report.document(new StorageResults(StorageResults.SCENARIO, null, 2, null, null, null,
                List.of(), List.of(), List.of(), List.of(), List.of()));
        assertThat(doc.publish().get(2).ratioToJetStream()).isEqualTo(2.5);
        assertThat(doc.read().get(0).ratioToJetStream()).isEqualTo(2.0);
        assertThat(doc.goals().get(0).met()).isTrue();
        assertThat(doc.goals().get(2).met()).as("replay >= 5M/s").isTrue();
        assertThat(report.text()).contains("2.50x");
    }
}
