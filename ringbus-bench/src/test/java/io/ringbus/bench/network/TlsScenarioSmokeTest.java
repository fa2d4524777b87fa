package io.ringbus.bench.network;

import io.ringbus.bench.BenchMain;
import io.ringbus.bench.ResultsJson;
import io.ringbus.bench.chart.ResultCharts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs the tls scenario at toy size (a few thousand messages and a few connections per case, one
 * run each) against ringbus-server.jar and nats-server with natsload built here, when nats-server,
 * the server jar, Go and nats.go are there (bin/test installs them), so that broken certificates,
 * server configuration, natsload TLS flags, ratios or chart fail the build. No speed is asserted.
 */
class TlsScenarioSmokeTest {
    private static final Path GOPATH = Path.of("/usr/share/gocode");

    @Test
    void everyCaseVerifiesOverTlsAndInPlaintextOnBothServers(@TempDir Path dir) throws Exception {
        try {
            ServerBinaries.locate(EnumSet.allOf(ServerKind.class), null, null);
        } catch (IllegalArgumentException e) {
            assumeTrue(false, e.getMessage());
        }
        Path natsload = buildNatsload(dir);
        Path json = dir.resolve("tls.json");

        int exit = BenchMain.run("tls", "--runs", "1", "--warmup", "0", "--messages", "2000", "--kib-messages", "500",
                "--connects", "10", "--warm-connects", "2", "--parallel", "1,2", "--ringbus-heap", "256m",
                "--natsload", natsload.toString(), "--work-dir", dir.resolve("work").toString(), "--json", json.toString());

        assertThat(exit).isZero();
        String text = Files.readString(json, StandardCharsets.UTF_8);
        TlsResults doc = ResultsJson.read(text, TlsResults.class);
        assertThat(ResultsJson.tree(ResultsJson.write(doc))).as("round trip").isEqualTo(ResultsJson.tree(text));
        // 5 cases x 2 servers x (TLS, plain)
        assertThat(doc.rows()).hasSize(20).allSatisfy(r -> {
            assertThat(r.failure()).as(r.transport() + " " + r.server() + " " + r.caseLabel()).isNull();
            assertThat(r.median()).isPositive();
        });
        assertThat(doc.rows()).filteredOn(r -> r.server().equals(ServerKind.RINGBUS.label()))
                .allSatisfy(r -> assertThat(r.ratioToNats()).isPositive());
        assertThat(doc.machine().ringbusTlsProvider()).doesNotStartWith("unknown");
        assertThat(doc.goal().met()).isNotNull();
        assertThat(Files.readString(dir.resolve("tls.svg"), StandardCharsets.UTF_8)).contains("ringbus-server TLS");
    }

    @Test
    void ringbusRowsAreDividedByNatsServersRowOfTheSameTransportAndCase() {
        TlsResults.Row ringbusTls = row("tls", ServerKind.RINGBUS, 500);
        TlsResults.Row natsTls = row("tls", ServerKind.NATS, 1_000);
        TlsResults.Row ringbusPlain = row("plain", ServerKind.RINGBUS, 3_000);
        TlsResults.Row natsPlain = row("plain", ServerKind.NATS, 2_000);

        TlsReport report = new TlsReport(List.of(ringbusTls, natsTls, ringbusPlain, natsPlain));

        assertThat(report.rows().get(0).ratioToNats()).isEqualTo(0.5);
        assertThat(report.rows().get(1).ratioToNats()).isNaN();
        assertThat(report.rows().get(2).ratioToNats()).isEqualTo(1.5);
        assertThat(report.rows().get(0).cpuRatioToNats()).as("twice the CPU per delivery").isEqualTo(2.0);
        assertThat(report.rows().get(1).cpuRatioToNats()).isNaN();
        assertThat(report.text()).contains("0.50x").contains("1.50x").contains("2.00x")
                .contains("lowest 0.50x (1->1 16 B), NOT met");
        TlsResults doc = report.document(new TlsResults(TlsResults.SCENARIO, null, 2, null, null, List.of(), null));
        assertThat(doc.goal().met()).isFalse();
        assertThat(ResultCharts.chart(ResultCharts.read(ResultsJson.write(doc))).render()).contains("0.50x");
    }

    private static TlsResults.Row row(String transport, ServerKind server, double perSecond) {
        return new TlsResults.Row(transport, "1x1x16", "1->1 16 B", TlsCase.DELIVERIES, server.label(),
                List.of(perSecond), perSecond, Double.NaN, 1e9 / perSecond, Double.NaN, null);
    }

    /** Builds natsload from this module's source as bin/bench does (GOPATH mode, Debian's nats.go). */
    private static Path buildNatsload(Path dir) throws Exception {
        Path go = Path.of("/usr/bin/go");
        assumeTrue(Files.isExecutable(go) && Files.isDirectory(GOPATH.resolve("src/github.com/nats-io/nats.go")),
                "no Go or nats.go (apt-get install golang-go golang-github-nats-io-go-nats-dev)");
        Path out = dir.resolve("natsload");
        Path log = dir.resolve("natsload-build.log");
        ProcessBuilder build = new ProcessBuilder(go.toString(), "build", "-o", out.toString(), ".")
                .directory(Path.of("src/main/go/natsload").toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        build.environment().put("GO111MODULE", "off");
        build.environment().put("GOFLAGS", "");
        build.environment().put("GOPATH", dir.resolve("gopath") + File.pathSeparator + GOPATH);
        Process process = build.start();
        assertThat(process.waitFor(180, TimeUnit.SECONDS)).as("go build within 180 s").isTrue();
        assertThat(process.exitValue()).as(Files.readString(log, StandardCharsets.UTF_8)).isZero();
        return out;
    }
}
