package io.ringbus.bench.jetstream;

import io.ringbus.bench.BenchMain;
import io.ringbus.bench.GoProgram;
import io.ringbus.bench.ResultsJson;
import io.ringbus.bench.storage.JetStreamServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs the jetstream scenario at toy size (one round, 200 ms per publish case, 8 publishers in one
 * of them, 2,000 messages replayed) against nats-server and ringbus-server started from this JVM's class path, when Go,
 * nats.go and nats-server are installed, so that a broken step, count, ratio or chart fails the
 * build. No speed is asserted.
 */
class JetStreamScenarioSmokeTest {
    private static final int REPLAYED = 2_000;

    @Test
    void measuresEachCaseOnBothServersAndWritesItsDocumentAndChart(@TempDir Path dir) throws Exception {
        assumeTrue(GoProgram.missing() == null && JetStreamServer.locate(null) != null, "needs Go, nats.go, nats-server");
        Path json = dir.resolve("jetstream.json");

        int exit = BenchMain.run("jetstream", "--only", "async-128,async-128-8pubs,ordered-replay", "--policies", "OS", "--rounds", "1",
                "--duration", "200ms", "--warmup", "50ms", "--warm-server", "0s", "--replay-msgs",
                Integer.toString(REPLAYED), "--fsyncs", "20", "--dir", dir.toString(), "--server-from-classpath",
                "--timeout", "60s", "--json", json.toString());

        assertThat(exit).isZero();
        String text = Files.readString(json, StandardCharsets.UTF_8);
        JetStreamResults doc = ResultsJson.read(text, JetStreamResults.class);
        assertThat(ResultsJson.tree(ResultsJson.write(doc))).as("round trip").isEqualTo(ResultsJson.tree(text));
        assertThat(doc.fsync().perSecond()).isPositive();
        assertThat(doc.rows()).extracting(r -> r.caseId() + " " + r.server() + " " + r.policy()).containsExactly(
                "async-128 nats-server default", "async-128 ringbus-server os",
                "async-128-8pubs nats-server default", "async-128-8pubs ringbus-server os",
                "ordered-replay nats-server default", "ordered-replay ringbus-server os");
        assertThat(doc.rows()).allSatisfy(r -> {
            assertThat(r.failure()).isNull();
            assertThat(r.perSecond()).isPositive();
            assertThat(r.cpuMicrosPerMessage()).as("the server worked for its messages").isGreaterThanOrEqualTo(0);
        });
        JetStreamResults.Row ringbus = doc.rows().get(5);
        assertThat(ringbus.ratioToNats()).isEqualTo(ringbus.perSecond() / doc.rows().get(4).perSecond());
        assertThat(ringbus.goal()).isEqualTo(">= 2.0x nats");
        assertThat(Files.readString(dir.resolve("jetstream.svg"), StandardCharsets.UTF_8)).contains("ringbus os")
                .contains("ordered consumer replay");
        try (var leftovers = Files.list(dir)) {
            assertThat(leftovers.map(p -> p.getFileName().toString())).as("stores deleted")
                    .containsExactlyInAnyOrder("jetstream.json", "jetstream.svg");
        }
    }
}
