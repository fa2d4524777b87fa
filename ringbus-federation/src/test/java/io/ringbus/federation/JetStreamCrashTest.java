package io.ringbus.federation;

import io.ringbus.testkit.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broker with durable subjects on JetStream is {@code kill -9}ed under load, five times, and
 * restarted: every message whose publish returned (PubAck) is delivered to the durable consumer at
 * least once across the runs, and the last run catches up on everything.
 */
class JetStreamCrashTest {
    @TempDir
    Path dir;

    @Test
    void aKilledBrokerLosesNothingAcknowledgedOnJetStream() throws Exception {
        Random random = new Random(11);
        Set<String> acked = new HashSet<>();
        Set<String> delivered = new HashSet<>();
        int duplicates = 0;
        List<List<String>> runs = new ArrayList<>();
        try (PrivateNatsServer nats = PrivateNatsServer.start(dir)) {
            for (int round = 0; round < 5; round++) {
                try (ChildProcess child = start(nats.url(), "RUN", round)) {
                    child.awaitLine("ready"::equals, 30);
                    Thread.sleep(300 + random.nextInt(1200));
                    child.kill(); // SIGKILL; returns once every line it printed was read
                    runs.add(child.lines());
                }
            }
            try (ChildProcess drain = start(nats.url(), "DRAIN", 99)) {
                drain.awaitLine("caught-up"::equals, 90);
                assertThat(drain.awaitExit(30)).as("the last run exits%s", drain.diagnostics()).isZero();
                runs.add(drain.lines());
            }
        }
        for (List<String> lines : runs) {
            for (String line : lines) {
                if (line.startsWith("a ")) {
                    acked.add(line.substring(2));
                } else if (line.startsWith("d ") && !delivered.add(line.substring(2))) {
                    duplicates++;
                }
            }
        }
        Set<String> lost = new HashSet<>(acked);
        lost.removeAll(delivered);
        System.out.printf("JetStream crash test: 5 kills, %d acknowledged, %d lost, %d delivered again%n",
                acked.size(), lost.size(), duplicates);
        assertThat(acked).hasSizeGreaterThan(100);
        assertThat(lost).as("acknowledged and never delivered").isEmpty();
    }

    private static ChildProcess start(String url, String mode, int round) throws IOException {
        return ChildProcess.start("jetstream-crash-broker", List.of("-Xmx128m"), JetStreamCrashBroker.class, url,
                mode, Integer.toString(round));
    }
}
