package io.ringbus.bench.hostile;

import io.ringbus.bench.network.ServerBinaries;
import io.ringbus.bench.network.ServerKind;
import io.ringbus.server.ServerRequests;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The standing hostile-client harness as a test: every attack against a forked ringbus-server at
 * -Xmx128m (from this build's class path), for a few seconds each. The server must stay up, never
 * run out of memory, answer every healthy round trip, valid bcrypt login (from another source
 * address) and {@code /healthz} while under attack, and log in a fresh client afterwards. Latency
 * goals are the benchmark's ({@code bin/bench hostile}), never asserted here.
 */
@Timeout(600)
class HostileHarnessTest {
    private static final Duration EACH = Duration.ofSeconds(5);
    private static HostileConfig config;

    @TempDir
    static Path workDir;

    @BeforeAll
    static void users() {
        config = HostileConfig.create().withAuthTimeout(10); // a busy CI machine, not a latency goal
    }

    static List<String> attacks() {
        return Attacks.all().stream().map(Attack::name).toList();
    }

    @Test
    void everyRequestTheServerAcceptsHasAnAttack() {
        Set<String> covered = new HashSet<>();
        Attacks.all().forEach(attack -> covered.addAll(attack.covers()));
        assertThat(covered).as("requests some attack covers").containsAll(ServerRequests.all());
    }

    @Test
    void attackNamesAreUnique() {
        assertThat(attacks()).doesNotHaveDuplicates();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attacks")
    void ringbusServerSurvivesWithHealthyClientsAnswered(String name) throws Exception {
        ServerBinaries binaries = new ServerBinaries(Path.of(System.getProperty("java.home"), "bin", "java"), null, null);
        HostileRun run = new HostileRun(binaries, config, "128m", EACH, workDir, System.out);

        HostileResult result = run.run(Attacks.named(List.of(name)).getFirst(), ServerKind.RINGBUS);

        String report = new HostileReport(List.of(result)).text();
        assertThat(result.alive()).as("server still running%n%s", report).isTrue();
        assertThat(result.outOfMemory()).as("OutOfMemoryError in the server's log%n%s", report).isFalse();
        assertThat(result.healthyAfter()).as("a fresh login and /healthz after the attack%n%s", report).isTrue();
        for (Probe.Figures probe : result.probes()) {
            assertThat(probe.answered()).as("%s answered during the attack%n%s", probe.what(), report).isPositive();
            assertThat(probe.failed()).as("%s unanswered or refused during the attack%n%s", probe.what(), report)
                    .isZero();
        }
    }
}
