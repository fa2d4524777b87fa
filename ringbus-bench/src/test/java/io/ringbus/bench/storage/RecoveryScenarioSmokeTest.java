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
 * Runs {@code storage recovery} at toy size (4 MiB stores, one run per scenario, the page cache
 * kept) with ringbus-server started from the test class path, and nats-server with jsload when Go,
 * nats.go and nats-server are installed, so that a broken fill, start, kill, cut or PubAck check
 * fails the build. No speed is asserted.
 */
class RecoveryScenarioSmokeTest {
    @Test
    void bothServersServeTheNextSequenceAfterAKillAndAfterACut(@TempDir Path dir) throws Exception {
        boolean peer = JsLoad.missing() == null && JetStreamServer.locate(null) != null;
        Path json = dir.resolve("recovery.json");
        List<String> args = new ArrayList<>(List.of("storage", "recovery", "--recovery-mib", "4", "--recovery-runs", "1",
                "--recovery-keep-cache", "--server-from-classpath", "--dir", dir.toString(), "--timeout", "60s", "--json",
                json.toString()));
        if (!peer) {
            args.add("--no-jetstream");
        }

        int exit = BenchMain.run(args.toArray(String[]::new));

        assertThat(exit).isZero();
        StorageResults doc = ResultsJson.read(Files.readString(json, StandardCharsets.UTF_8), StorageResults.class);
        assertThat(doc.publish()).as("recovery alone").isEmpty();
        assertThat(doc.recovery()).extracting(r -> r.system() + " " + r.scenario()).containsExactlyElementsOf(peer
                ? List.of("ringbus-server killed", "ringbus-server cut", "nats-server killed", "nats-server cut")
                : List.of("ringbus-server killed", "ringbus-server cut"));
        assertThat(doc.recovery()).allSatisfy(r -> {
            assertThat(r.failure()).isNull();
            assertThat(r.messages()).isEqualTo(4 * 1024);
            assertThat(r.logBytes()).isGreaterThan(4L << 20);
            assertThat(r.firstAckMillis()).isPositive();
            assertThat(r.pageCache()).isEqualTo("kept");
        });
        assertThat(doc.recovery()).filteredOn(r -> r.system().equals("ringbus-server")).allSatisfy(r -> {
            assertThat(r.storeOpenMillis()).as("from its log").isNotNaN();
            assertThat(r.openReadBytes()).isNotNegative();
        });
        assertThat(doc.goals()).anySatisfy(g -> assertThat(g.goal()).contains("issue 30"));
    }
}
