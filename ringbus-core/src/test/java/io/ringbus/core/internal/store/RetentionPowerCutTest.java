package io.ringbus.core.internal.store;

import io.ringbus.core.StoredMessage;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamInfo;
import io.ringbus.testkit.ChildProcess;
import io.ringbus.testkit.PowerLossFileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retention across power cuts (issue 30): a process ({@link RetentionCutChild}) appends to a stream
 * with {@code max_messages}, one with {@code max_bytes} and a work queue whose worker acknowledges
 * as it goes, so that segments are deleted all the time; {@value #ROUNDS} times in a row it runs
 * {@value #QUIET} turns, closes the store, opens it again and goes on until, at a random instant
 * (fixed seed), it is killed with SIGKILL and the power cut (torn or not); the store is then
 * checked here, on what survived; a last process works off the queue. POSIX and FILE modes.
 *
 * <p>What ringbus promises (docs/storage.md, "Power loss"), asserted after every cut:
 * <ol>
 *   <li>A deletion made durable stays: the stream's first sequence is never below the first
 *       sequence seen when a deletion was durable, and the record before it is not read back.
 *       Durable: for the limits, once an append made after the roll that deleted it is
 *       acknowledged (the log's flusher unlinks and forces the directory before it reports
 *       anything past the deletion durable), or the store was closed; for the work queue, which
 *       compacts on the consumer saves and acknowledges nothing, once the store was closed. A
 *       deletion not yet durable may come back: the consumer's saved position, not the first
 *       sequence, keeps it from being delivered again.</li>
 *   <li>Sequences are never reused: no two acknowledged appends ever get the same sequence, and
 *       the log's last sequence is at least the last acknowledged one; every acknowledged record
 *       still retained reads back with its content.</li>
 *   <li>The work queue skips nothing: every acknowledged job is worked (acknowledged by the
 *       worker) by some process, although its segments are deleted as the worker goes; and a job
 *       worked before a clean close is never delivered again.</li>
 * </ol>
 */
@Timeout(300)
class RetentionPowerCutTest {
    private static final int ROUNDS = 3;
    private static final int QUIET = 80;
    private static final long SEED = 30_54L;
    private static final String JOBS = RetentionCutChild.JOBS.name();

    @TempDir
    Path work;

    /** Per stream, every acknowledged sequence and the id it holds. */
    private final Map<String, Map<Long, String>> acked = new HashMap<>();
    /** Per stream, the highest first sequence seen where the deletions before it were durable. */
    private final Map<String, Long> durableFirst = new HashMap<>();
    private final Set<Long> worked = new HashSet<>();
    private final Set<Long> workedBeforeAClose = new HashSet<>();

    @ParameterizedTest
    @EnumSource(value = PowerLossFileSystem.Mode.class, names = {"POSIX", "FILE"})
    void durableDeletionsStaySequencesAreNeverReusedAndTheQueueSkipsNothing(PowerLossFileSystem.Mode mode)
            throws Exception {
        Assumptions.assumeTrue(PowerLossFileSystem.available(), PowerLossFileSystem::unavailableReason);
        Random random = new Random(SEED + mode.ordinal());
        try (PowerLossFileSystem fs = PowerLossFileSystem.mount(work.resolve("mnt"), work.resolve("disk"), mode)) {
            Path dir = fs.mountPoint().resolve("data");
            List<String> report = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                PowerCut cut = PowerCut.draw(random, 20, 300);
                List<String> lines = cut.killAndCut(start(dir, "RUN", String.valueOf(round), String.valueOf(QUIET)),
                        "reopened", fs);
                int redelivered = record(lines, round + " (" + mode + ")");
                report.add("round " + round + " (" + cut.describe("reopening") + "): " + verify(dir, round, mode)
                        + ", jobs delivered again after the previous cut " + redelivered);
            }
            try (ChildProcess drain = start(dir, "DRAIN")) {
                drain.awaitLine("drained"::equals, 120);
                assertThat(drain.awaitExit(60)).isZero();
                report.add("drain: jobs delivered again after the last cut " + record(drain.lines(), "drain"));
            }
            System.out.println("RetentionPowerCutTest " + mode + ": " + String.join("; ", report));
            Set<Long> skipped = new TreeSet<>(acked.getOrDefault(JOBS, Map.of()).keySet());
            skipped.removeAll(worked);
            assertThat(skipped).as("acknowledged jobs never worked (%s)", mode).isEmpty();
            assertThat(durableFirst.get(RetentionCutChild.EVENTS.name())).as("events deleted by max_messages")
                    .isGreaterThan(1);
            assertThat(durableFirst.get(RetentionCutChild.METRICS.name())).as("metrics deleted by max_bytes")
                    .isGreaterThan(1);
            assertThat(durableFirst.get(JOBS)).as("jobs deleted once worked").isGreaterThan(1);
        }
    }

    /**
     * Reads what a process printed: acknowledged appends (no sequence twice), durable first
     * sequences, jobs delivered and worked; checks no job worked before a clean close is delivered
     * again.
     *
     * @return how many jobs it delivered that an earlier process had worked (at least once)
     */
    private int record(List<String> lines, String what) {
        Set<Long> workedBefore = new HashSet<>(worked);
        Set<Long> delivered = new TreeSet<>();
        boolean closed = false;
        for (String line : lines) {
            String[] w = line.split(" ");
            switch (w[0]) {
                case "closed" -> closed = true;
                case "a" -> {
                    long sequence = Long.parseLong(w[2]);
                    String earlier = acked.computeIfAbsent(w[1], k -> new TreeMap<>()).putIfAbsent(sequence, w[3]);
                    assertThat(earlier).as("round %s: stream %s acknowledged sequence %d for %s, already acknowledged"
                            + " for %s (a sequence reused)", what, w[1], sequence, w[3], earlier).isNull();
                    if (!w[1].equals(JOBS)) {
                        durableFirst.merge(w[1], Long.parseLong(w[4]), Math::max);
                    }
                }
                case "first" -> durableFirst.merge(w[1], Long.parseLong(w[2]), Math::max);
                case "d" -> {
                    long sequence = Long.parseLong(w[1]);
                    assertThat(workedBeforeAClose).as("round %s delivered job %d again, worked before a clean close",
                            what, sequence).doesNotContain(sequence);
                    delivered.add(sequence);
                }
                case "w" -> {
                    long sequence = Long.parseLong(w[1]);
                    worked.add(sequence);
                    if (!closed) {
                        workedBeforeAClose.add(sequence);
                    }
                }
                default -> {
                }
            }
        }
        return PowerCut.common(delivered, workedBefore).size();
    }

    /** Opens the store on what the cut left and checks (1) and (2). @return first and last sequences, for the report */
    private String verify(Path dir, int round, PowerLossFileSystem.Mode mode) {
        List<String> seen = new ArrayList<>();
        try (LocalStorage storage = RetentionCutChild.open(dir)) {
            for (StreamConfig config : RetentionCutChild.STREAMS) {
                String name = config.name();
                LocalStream stream = (LocalStream) storage.stream(config);
                StreamInfo info = stream.info();
                long first = durableFirst.getOrDefault(name, 1L);
                assertThat(info.firstSequence()).as("round %d (%s): stream %s's first sequence after the cut, below"
                        + " one whose deletions were durable", round, mode, name).isGreaterThanOrEqualTo(first);
                if (first > 1) {
                    assertThat(stream.read(first - 1, 1)).as("round %d (%s): %s sequence %d, deleted durably, read"
                            + " back", round, mode, name, first - 1).isNull();
                }
                Map<Long, String> ids = acked.getOrDefault(name, Map.of());
                for (Map.Entry<Long, String> e : ids.entrySet()) {
                    if (e.getKey() < info.firstSequence()) {
                        continue;
                    }
                    StoredMessage m = stream.read(e.getKey(), 1);
                    assertThat(m).as("round %d (%s): %s lost acknowledged sequence %d", round, mode, name, e.getKey())
                            .isNotNull();
                    assertThat(RetentionCutChild.id(m)).as("%s sequence %d", name, e.getKey()).isEqualTo(e.getValue());
                }
                long lastAcked = ids.isEmpty() ? 0 : ((TreeMap<Long, String>) ids).lastKey();
                assertThat(info.lastSequence()).as("round %d (%s): %s's last sequence after the cut", round, mode, name)
                        .isGreaterThanOrEqualTo(lastAcked);
                seen.add(name + " " + info.firstSequence() + ".." + info.lastSequence() + " (first durable " + first
                        + ")");
            }
        }
        return String.join(", ", seen);
    }

    private static ChildProcess start(Path dir, String... args) throws IOException {
        return PowerCut.start("retention-cut", RetentionCutChild.class, dir, args);
    }
}
