package io.ringbus.core.internal.store;

import io.ringbus.core.PublishAck;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.testkit.ChildProcess;
import io.ringbus.testkit.PowerLossFileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A durable consumer's acknowledgements across power cuts (issue 30). {@value #MESSAGES} messages
 * are stored ({@code ALWAYS}) on a {@link PowerLossFileSystem}; then {@value #ROUNDS} times in a
 * row a consumer process ({@link ConsumerAckCutChild}) acknowledges {@value #QUIET} messages, closes
 * the store, opens it again and acknowledges on until, at a random instant (fixed seed), it is
 * killed with SIGKILL and the power cut (torn or not); a last process drains the rest.
 *
 * <p>What is asserted, the documented window of docs/storage.md ("saved every 50 ms", at least
 * once): (1) nothing unacknowledged is skipped: every stored message is acknowledged by some
 * process; (2) an acknowledgement made before a clean close of the store returned is never
 * delivered again, whatever cut follows (the close saved the state durably, its name included);
 * acknowledgements after the reopen may be delivered again after the cut (those of the last
 * 50 ms, the save interval, and the save under way): counted and printed, not asserted, since how
 * many fit in 50 ms depends on the machine; (3) the store opens after every cut.
 */
@Timeout(300)
class ConsumerAckPowerCutTest {
    private static final int MESSAGES = 3_000;
    private static final int ROUNDS = 3;
    private static final int QUIET = 150;
    private static final long SEED = 30_50L;

    @TempDir
    Path work;

    @ParameterizedTest
    @EnumSource(value = PowerLossFileSystem.Mode.class, names = {"POSIX", "FILE"})
    void acknowledgedStaysAcknowledgedAndNothingUnacknowledgedIsSkipped(PowerLossFileSystem.Mode mode)
            throws Exception {
        Assumptions.assumeTrue(PowerLossFileSystem.available(), PowerLossFileSystem::unavailableReason);
        Random random = new Random(SEED + mode.ordinal());
        try (PowerLossFileSystem fs = PowerLossFileSystem.mount(work.resolve("mnt"), work.resolve("disk"), mode)) {
            Path dir = fs.mountPoint().resolve("data");
            try (Storage storage = Storage.local(dir)) {
                StoredStream stream = storage.stream(StreamConfig.of(ConsumerAckCutChild.PATTERN));
                List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
                for (int i = 0; i < MESSAGES; i++) {
                    acks.add(stream.append("orders.eu." + i, null, ("order " + i).getBytes(StandardCharsets.US_ASCII),
                            null));
                }
                acks.forEach(CompletableFuture::join);
            }
            Set<Long> acked = new HashSet<>();
            Set<Long> ackedBeforeAClose = new HashSet<>();
            List<String> report = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                PowerCut cut = PowerCut.draw(random, 20, 400);
                List<String> lines = cut.killAndCut(start(dir, "ACK", String.valueOf(QUIET)), "reopened", fs);
                Run run = Run.of(lines);
                assertThat(run.ackedBeforeClose).as("round %d acknowledged before its clean close", round)
                        .hasSize(QUIET);
                assertThat(common(run.delivered, ackedBeforeAClose)).as("round %d delivered again what was "
                        + "acknowledged before a clean close (%s)", round, mode).isEmpty();
                report.add("round " + round + " (" + cut.describe("reopening") + "): acknowledged " + run.acked.size() + ", delivered again after the previous cut "
                        + count(run.delivered, acked));
                acked.addAll(run.acked);
                ackedBeforeAClose.addAll(run.ackedBeforeClose);
            }
            List<String> lines;
            try (ChildProcess drain = start(dir, "DRAIN")) {
                drain.awaitLine(l -> l.equals("drained"), 120);
                assertThat(drain.awaitExit(60)).isZero();
                lines = List.copyOf(drain.lines());
            }
            Run last = Run.of(lines);
            assertThat(common(last.delivered, ackedBeforeAClose))
                    .as("the drain delivered again what was acknowledged before a clean close").isEmpty();
            report.add("drain: acknowledged " + last.acked.size() + ", delivered again after the last cut "
                    + count(last.delivered, acked));
            acked.addAll(last.acked);
            System.out.println("ConsumerAckPowerCutTest " + mode + ": " + String.join("; ", report));
            Set<Long> missing = new TreeSet<>();
            for (long seq = 1; seq <= MESSAGES; seq++) {
                if (!acked.contains(seq)) {
                    missing.add(seq);
                }
            }
            assertThat(missing).as("messages never acknowledged (skipped) in %s mode", mode).isEmpty();
        }
    }

    private static long count(Set<Long> delivered, Set<Long> acked) {
        return common(delivered, acked).size();
    }

    private static Set<Long> common(Set<Long> a, Set<Long> b) {
        return PowerCut.common(a, b);
    }

    private static ChildProcess start(Path dir, String... args) throws IOException {
        return PowerCut.start("consumer-ack-cut", ConsumerAckCutChild.class, dir, args);
    }

    /** What one consumer process printed: sequences delivered, acknowledged, acknowledged before {@code closed}. */
    private record Run(Set<Long> delivered, Set<Long> acked, Set<Long> ackedBeforeClose) {
        static Run of(List<String> lines) {
            Run run = new Run(new HashSet<>(), new HashSet<>(), new HashSet<>());
            boolean closed = false;
            for (String line : lines) {
                if (line.equals("closed")) {
                    closed = true;
                } else if (line.startsWith("d ")) {
                    run.delivered.add(Long.parseLong(line.split(" ")[1]));
                } else if (line.startsWith("a ")) {
                    long seq = Long.parseLong(line.substring(2));
                    run.acked.add(seq);
                    if (!closed) {
                        run.ackedBeforeClose.add(seq);
                    }
                }
            }
            return run;
        }
    }
}
