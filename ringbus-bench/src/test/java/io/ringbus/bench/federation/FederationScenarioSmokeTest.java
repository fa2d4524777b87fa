package io.ringbus.bench.federation;

import io.ringbus.bench.BenchMain;
import io.ringbus.bench.ResultsJson;
import io.ringbus.bench.storage.JetStreamServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The federation scenario at toy size: every case runs, every receiver gets every message, the document reads back. */
class FederationScenarioSmokeTest {
    @Test
    void everyCaseRunsAndWritesItsDocumentAndChart(@TempDir Path dir) throws Exception {
        assumeTrue(JetStreamServer.locate(null) != null, "needs nats-server");
        Path json = dir.resolve("federation.json");

        int exit = BenchMain.run(new String[] {"federation", "--messages", "2000", "--repeats", "1", "--json",
                json.toString()});

        assertThat(exit).isZero();
        FederationResults doc = ResultsJson.read(Files.readString(json, StandardCharsets.UTF_8), FederationResults.class);
        assertThat(doc.rows()).hasSize(6).allSatisfy(r -> assertThat(r.rate()).isPositive());
        assertThat(doc.rows()).filteredOn(r -> r.system().equals("ringbus"))
                .allSatisfy(r -> assertThat(r.ratio()).isPositive());
        assertThat(dir.resolve("federation.svg")).exists();
    }
}
