package io.ringbus.bench.network;

import io.ringbus.bench.ResultsJson;
import io.ringbus.core.Broker;
import io.ringbus.core.Scope;
import io.ringbus.core.WaitStrategy;
import io.ringbus.server.RingbusServer;
import io.ringbus.server.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Runs the network scenario's jnats workload at toy size against ringbus-server embedded in this
 * JVM (the server jar is not built yet when tests run, and nats-server may be missing), so that
 * a broken workload, check or report fails the build.
 */
class NetworkScenarioSmokeTest {
    private static Broker broker;
    private static RingbusServer server;

    @BeforeAll
    static void startServer() {
        broker = Broker.builder().name("server").ringSize(65_536).waitStrategy(WaitStrategy.BLOCKING).eventLoops(1)
                .defaultScope(Scope.PUBLIC).build();
        server = RingbusServer.start(broker, ServerConfig.builder().host("127.0.0.1").port(0)
                .monitorPort(ServerConfig.MONITOR_OFF).build());
    }

    @AfterAll
    static void stopServer() {
        server.close();
        broker.close();
    }

    @Test
    void everyStandardCaseDeliversEveryMessageExactly() throws Exception {
        JnatsWorkload workload = new JnatsWorkload(Duration.ofSeconds(30));
        List<CaseResult> results = new ArrayList<>();
        int run = 0;
        for (NetworkCase c : NetworkCase.standard(3_000, 1_000)) {
            RunOutcome outcome = workload.run(url(), c, "smoke.r" + run++);

            assertThat(outcome.deliveries()).isEqualTo(c.messages() * c.subscribers());
            assertThat(outcome.deliverNanos()).isPositive();
            assertThat(outcome.publishNanos()).isPositive();
            results.add(new CaseResult(ServerKind.RINGBUS, c, List.of(outcome)));
        }
        assertThat(server.stats().messagesIn()).isGreaterThanOrEqualTo(3 * 3_000 + 1_000);
        assertThat(server.stats().slowConsumers()).isZero();

        ComparisonReport report = new ComparisonReport(0, 1,
                List.of(new ServerRun(ServerKind.RINGBUS, List.of("embedded"), 1024, Map.of("messagesIn", 10L), results)));
        assertThat(report.table()).contains("1->4 16 B").contains("1->1 1 KiB").contains("4->1 16 B");
        NetworkResults.Comparison section = report.section();
        String json = ResultsJson.write(section);
        assertThat(json).contains("\"deliveries\": 12000").contains("\"peakRssMiB\": 1.0");
        assertThat(ResultsJson.read(json, NetworkResults.Comparison.class)).isEqualTo(section);
    }

    @Test
    void runAgainstAServerThatIsGoneFails() {
        JnatsWorkload workload = new JnatsWorkload(Duration.ofSeconds(5));

        assertThatThrownBy(() -> workload.run("nats://127.0.0.1:" + EphemeralPorts.pick(),
                new NetworkCase(1, 1, 16, 10), "smoke.gone")).isInstanceOf(java.io.IOException.class);
    }

    @Test
    void sequenceCheckCatchesLossDuplicatesAndReordering() {
        SequenceCheck exact = feed(new long[] {0, 1, 2});
        SequenceCheck lost = feed(new long[] {0, 2});
        SequenceCheck duplicated = feed(new long[] {0, 1, 1, 2});
        SequenceCheck reordered = feed(new long[] {0, 2, 1});

        assertThat(exact.verdict()).isNull();
        assertThat(exact.completedAtNanos()).isPositive();
        assertThat(lost.verdict()).contains("received 2 of 3").contains("gap");
        assertThat(duplicated.verdict()).contains("duplicate");
        assertThat(reordered.verdict()).contains("sequence errors");
    }

    @Test
    void comparisonDividesThroughputAndServerCpuByNatsServers() {
        NetworkCase c = new NetworkCase(1, 1, 16, 1_000);
        ServerRun ringbus = new ServerRun(ServerKind.RINGBUS, List.of("x"), 2048, Map.of(),
                List.of(new CaseResult(ServerKind.RINGBUS, c, List.of(new RunOutcome(1_000_000, 2_000_000, 1_000, 1_000)),
                        null, 3_000_000)));
        ServerRun nats = new ServerRun(ServerKind.NATS, List.of("y"), 1024, Map.of(),
                List.of(new CaseResult(ServerKind.NATS, c, List.of(new RunOutcome(1_000_000, 1_000_000, 1_000, 1_000)),
                        null, 1_500_000)));
        ComparisonReport report = new ComparisonReport(0, 1, List.of(ringbus, nats));

        String table = report.table();

        assertThat(table).as("half the deliveries/s, 3,000 ns of CPU per delivery: twice nats-server's")
                .containsPattern("ringbus-server .* 0\\.50 +3,000 +2\\.00\\n")
                .containsPattern("nats-server .* 1\\.00 +1,500 +1\\.00\\n");
        NetworkResults.CaseRow row = report.section().servers().getFirst().cases().getFirst();
        assertThat(row.serverCpuMs()).isEqualTo(3.0);
        assertThat(row.serverCpuNanosPerDelivery()).isEqualTo(3_000.0);
        assertThat(row.cpuRatioToBaseline()).isEqualTo(2.0);
    }

    @Test
    void unknownServerCpuLeavesTheCpuColumnsEmpty() {
        NetworkCase c = new NetworkCase(1, 1, 16, 1_000);
        ServerRun ringbus = new ServerRun(ServerKind.RINGBUS, List.of("x"), 2048, Map.of(),
                List.of(new CaseResult(ServerKind.RINGBUS, c, List.of(new RunOutcome(1_000_000, 2_000_000, 1_000, 1_000)))));

        ComparisonReport report = new ComparisonReport(0, 1, List.of(ringbus));

        assertThat(report.table()).containsPattern("ringbus-server .* - +- +-\\n");
        assertThat(report.section().servers().getFirst().cases().getFirst().serverCpuNanosPerDelivery()).isNaN();
    }

    @Test
    void portsAreNeverTheNatsDefaultNorOnesOutgoingConnectionsTake() {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = EphemeralPorts.pick();
            assertThat(port).isNotEqualTo(EphemeralPorts.NATS_DEFAULT_PORT).isBetween(10_000,
                    EphemeralPorts.ephemeralRangeStart() - 1);
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
        }
    }

    private static SequenceCheck feed(long[] sequences) {
        SequenceCheck check = new SequenceCheck(new long[] {3});
        for (long s : sequences) {
            check.accept(SequencedPayload.create(16, 0, s));
        }
        return check;
    }

    private static String url() {
        return "nats://127.0.0.1:" + server.port();
    }
}
