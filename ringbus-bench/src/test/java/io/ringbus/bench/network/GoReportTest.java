package io.ringbus.bench.network;

import io.ringbus.bench.ResultsJson;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The Go client's report: throughput and server CPU ratios to nats-server's, and peak RSS; no server runs. */
class GoReportTest {
    private static final GoCase ONE_TO_FOUR = GoCase.standard(4, 1_000, 100, 10, 100, Duration.ofSeconds(1)).get(2);

    private static NatsLoadResult.Throughput run(long deliveries, double deliveriesPerSecond) {
        return new NatsLoadResult.Throughput("throughput", "1->4", 1, 4, 0, 16, deliveries / 4, deliveries, deliveries,
                1_000_000, 2_000_000, 1e6, deliveriesPerSecond, true, null);
    }

    @Test
    void dividesDeliveriesAndServerCpuPerDeliveryByNatsServers() {
        // 2 runs of 4,000 deliveries each: ringbus 4 ms of CPU (500 ns per delivery), nats-server 2 ms (250 ns)
        GoResult ringbus = new GoResult(ServerKind.RINGBUS, CorePlan.UNPINNED, ONE_TO_FOUR,
                List.of(run(4_000, 1e6), run(4_000, 1e6)), null, 4_000_000, 200 * 1024);
        GoResult nats = new GoResult(ServerKind.NATS, CorePlan.UNPINNED, ONE_TO_FOUR,
                List.of(run(4_000, 2e6), run(4_000, 2e6)), null, 2_000_000, 60 * 1024);
        GoReport report = new GoReport(0, 2, List.of(), List.of(ringbus, nats));

        assertThat(ringbus.cpuNanosPerMessage()).isEqualTo(500.0);
        assertThat(report.cpuRatio(ringbus)).isEqualTo(2.0);
        assertThat(report.table()).containsPattern("1->4 16 B +ringbus-server .* 0\\.50 +500 +2\\.00\\n")
                .containsPattern("1->4 16 B +nats-server .* 1\\.00 +250 +1\\.00\\n");
        assertThat(report.memoryTable()).containsPattern("ringbus-server +all +200\\.0").containsPattern(
                "nats-server +all +60\\.0");
        NetworkResults.Go section = report.section();
        assertThat(section.results().getFirst().serverCpuMs()).isEqualTo(4.0);
        assertThat(section.results().getFirst().cpuRatioToBaseline()).isEqualTo(2.0);
        assertThat(ResultsJson.read(ResultsJson.write(section), NetworkResults.Go.class)).isEqualTo(section);
    }

    @Test
    void aFailedCaseHasNoCpuFigure() {
        GoResult failed = new GoResult(ServerKind.RINGBUS, CorePlan.UNPINNED, ONE_TO_FOUR, List.of(), "lost 3", -1, -1);

        assertThat(failed.cpuNanosPerMessage()).isNaN();
        assertThat(new GoReport(0, 1, List.of(), List.of(failed)).cpuRatio(failed)).isNull();
    }
}
