package io.ringbus.core.internal.store;

import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConsumer;
import io.ringbus.testkit.PowerLossFileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's lock and metadata across power cuts (issue 30): streams and consumers created in a
 * loop ({@link MetadataCutChild}) by a process killed at a random instant (a crash: the page cache
 * stays), then by a second process that reopens the stream the first was creating and goes on
 * creating, killed too, and the power cut (torn or not); {@value #ROUNDS} rounds in a row, POSIX and
 * FILE modes. Before the first round the test leaves, through the mount and unsynced, the
 * directories of stream {@code s0_all} as a process killed between its {@code mkdir}s and the
 * directory {@code fsync}s leaves them.
 *
 * <p>After every cut, on what survived: (1) the store opens (its stale {@code LOCK} never refuses
 * it); (2) every stream whose creation returned opens with its pattern; (3) every acknowledged
 * append is read back, intact; (4) every consumer whose creation returned still exists at the
 * position it was created at: it starts at {@code NEW}, so if its creation were lost it would be
 * created again at the stream's end and skip the message appended after it; it must deliver every
 * acknowledged message appended after its creation returned.
 */
@Timeout(300)
class MetadataPowerCutTest {
    private static final int ROUNDS = 3;
    private static final long SEED = 30_52L;

    @TempDir
    Path work;

    /** Stream index to the sequences acknowledged in it, for (3). */
    private final Map<Long, Set<Long>> appended = new TreeMap<>();
    /** Stream index to the sequences appended after its consumer's creation returned, not yet delivered. */
    private final Map<Long, Set<Long>> owed = new TreeMap<>();
    private final Set<Long> created = new TreeSet<>();

    @ParameterizedTest
    @EnumSource(value = PowerLossFileSystem.Mode.class, names = {"POSIX", "FILE"})
    void storeStreamsAndConsumersSurviveCutsDuringCreation(PowerLossFileSystem.Mode mode) throws Exception {
        Assumptions.assumeTrue(PowerLossFileSystem.available(), PowerLossFileSystem::unavailableReason);
        Random random = new Random(SEED + mode.ordinal());
        try (PowerLossFileSystem fs = PowerLossFileSystem.mount(work.resolve("mnt"), work.resolve("disk"), mode)) {
            Path dir = fs.mountPoint().resolve("data");
            Path first = dir.resolve("streams").resolve(MetadataCutChild.config(0).name());
            Files.createDirectories(first.resolve("log"));
            Files.createDirectories(first.resolve("consumers"));
            long next = 0;
            List<String> report = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                PowerCut crash = PowerCut.draw(random, 100, 300);
                List<String> crashed = crash.kill(PowerCut.start("metadata-cut", MetadataCutChild.class, dir,
                        String.valueOf(next)), "ready");
                long interrupted = record(crashed, next);
                PowerCut cut = PowerCut.draw(random, 100, 300);
                List<String> cutLines = cut.killAndCut(PowerCut.start("metadata-cut", MetadataCutChild.class, dir,
                        String.valueOf(interrupted)), "ready", fs);
                next = record(cutLines, interrupted) + 1;
                long repairs = verify(dir, round, mode);
                report.add("round " + round + ": crash " + crash.describe("ready") + " while creating stream "
                        + interrupted + ", then " + cut.describe("ready") + " up to stream " + (next - 1)
                        + ", repairs " + repairs);
            }
            System.out.println("MetadataPowerCutTest " + mode + ": " + String.join("; ", report));
            assertThat(created).as("streams created").hasSizeGreaterThan(ROUNDS);
        }
    }

    /**
     * Reads what a process printed into {@link #created}, {@link #appended} and {@link #owed}.
     *
     * @return the index of the stream it was creating when killed ({@code first} if none)
     */
    private long record(List<String> lines, long first) {
        long creating = first;
        Set<Long> consumerCreated = new TreeSet<>();
        for (String line : lines) {
            String[] w = line.split(" ");
            switch (w[0]) {
                case "creating" -> creating = Long.parseLong(w[1]);
                case "stream" -> created.add(Long.parseLong(w[1]));
                case "consumer" -> consumerCreated.add(Long.parseLong(w[1]));
                case "appended" -> {
                    long i = Long.parseLong(w[1]);
                    long sequence = Long.parseLong(w[2]);
                    appended.computeIfAbsent(i, k -> new TreeSet<>()).add(sequence);
                    if (consumerCreated.contains(i)) {
                        owed.computeIfAbsent(i, k -> new TreeSet<>()).add(sequence);
                    }
                }
                default -> {
                }
            }
        }
        return creating;
    }

    /** Opens the store on what the cut left and checks (1) to (4); delivered messages are acknowledged. */
    private long verify(Path dir, int round, PowerLossFileSystem.Mode mode) throws InterruptedException {
        try (LocalStorage storage = (LocalStorage) Storage.local(dir)) {
            for (long i : created) {
                StoredStream stream = storage.stream(MetadataCutChild.config(i));
                for (long sequence : appended.getOrDefault(i, Set.of())) {
                    StoredMessage m = ((LocalStream) stream).read(sequence, 1);
                    assertThat(m).as("round %d (%s): stream %d lost acknowledged sequence %d", round, mode, i,
                            sequence).isNotNull();
                    assertThat(m.payload()).isEqualTo(MetadataCutChild.payload(i));
                }
                Set<Long> due = owed.remove(i);
                try (StreamConsumer consumer = stream.consumer(MetadataCutChild.consumer(i))) {
                    Set<Long> got = new TreeSet<>();
                    for (List<StoredMessage> batch = consumer.fetch(100, Duration.ofMillis(20)); !batch.isEmpty();
                         batch = consumer.fetch(100, Duration.ofMillis(20))) {
                        for (StoredMessage m : batch) {
                            got.add(m.sequence());
                            consumer.ack(m);
                        }
                    }
                    if (due != null) {
                        assertThat(got).as("round %d (%s): consumer of stream %d, created before what it was owed"
                                + " (its creation returned), skipped it", round, mode, i).containsAll(due);
                    }
                }
            }
            return storage.fileStats().repairs();
        }
    }
}
