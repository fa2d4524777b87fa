package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.testkit.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 17's crash test, on the log itself: a writer JVM ({@link LogCrashWriter}) appends from
 * four threads to one directory and is killed with SIGKILL at a random moment, round after round
 * (ALWAYS, INTERVAL and OS in turn, retention by bytes on some rounds); after every kill the log is
 * reopened here and every record ever acknowledged and still retained must be there exactly once,
 * intact, at the sequence {@code append} returned, with no corrupt record and no gap.
 */
class SegmentLogCrashTest {
    private static final long SEED = 17;
    private static final int ROUNDS = 12;
    private static final int THREADS = 4;
    private static final long SEGMENT_BYTES = 64 << 10;
    private static final long RETAINED_BYTES = 1 << 20;
    private static final long INTERVAL_MILLIS = 10;
    private static final FsyncPolicy[] POLICIES = {FsyncPolicy.ALWAYS, FsyncPolicy.INTERVAL, FsyncPolicy.OS};
    private static final Pattern ACK = Pattern.compile("ack (\\d+) (\\d+) (\\d+)");
    private static final Pattern OPENED = Pattern.compile("opened (\\d+) (\\d+)");

    @TempDir
    Path tmp;

    /** Acknowledged records of every round so far: sequence and key, side by side. */
    private long[] ackSequences = new long[1 << 16];
    private long[] ackKeys = new long[1 << 16];
    private int acks;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedRecordSurvivesKillNineExactlyOnce() throws Exception {
        Path dir = tmp.resolve("log");
        Random random = new Random(SEED);
        long lastSequence = 0;
        long truncated = 0;
        long retainedAway = 0;
        long maxRecords = 0;
        long ackChecks = 0;
        StringBuilder figures = new StringBuilder();
        for (int round = 0; round < ROUNDS; round++) {
            FsyncPolicy policy = POLICIES[round % POLICIES.length];
            long maxBytes = round % 4 == 3 ? RETAINED_BYTES : 0;
            long runMillis = 100 + random.nextInt(501);
            int before = acks;
            try (ChildProcess writer = startWriter(dir, policy, round, maxBytes)) {
                long[] opened = awaitOpened(writer);
                assertThat(opened[1]).as("round %d: the writer's log continues where the last reopen ended", round)
                        .isEqualTo(lastSequence);
                Thread.sleep(runMillis);
                int exit = writer.kill();
                assertThat(exit).as("round %d: killed by SIGKILL (128 + 9)%s", round, writer.diagnostics())
                        .isEqualTo(137);
                collectAcks(writer.lines(), round);
            }
            int roundAcks = acks - before;
            assertThat(roundAcks).as("round %d (%s): acknowledged records", round, policy).isPositive();
            try (SegmentLog log = SegmentLog.open(dir, LogConfig.builder().segmentBytes(SEGMENT_BYTES).build())) {
                Verified verified = verify(log, round);
                LogStats stats = log.stats();
                assertThat(stats.corruptRecordsSkipped()).as("round %d: a process kill corrupts no record", round)
                        .isZero();
                assertThat(stats.lastSequence()).as("round %d: the log grew", round).isGreaterThan(lastSequence);
                truncated += stats.truncatedTailBytes();
                retainedAway = verified.retainedAway;
                maxRecords = Math.max(maxRecords, verified.records);
                ackChecks += acks - verified.retainedAway;
                lastSequence = stats.lastSequence();
                figures.append(String.format("%n  round %2d %-8s retain %7d B, run %3d ms: %6d acks, log %d..%d "
                                + "(%d segments), torn tail %d B", round, policy, maxBytes, runMillis, roundAcks,
                        stats.firstSequence(), stats.lastSequence(), stats.segments(), stats.truncatedTailBytes()));
            }
        }
        System.out.printf("SegmentLogCrashTest: %d kills, %d records acknowledged, 0 lost, 0 duplicated, "
                        + "%d acknowledged then deleted by retention, %d torn tail bytes truncated, "
                        + "%d acknowledged records found over %d reopens (at most %d records read per reopen)%s%n",
                ROUNDS, acks, retainedAway, truncated, ackChecks, ROUNDS, maxRecords, figures);
    }

    private void collectAcks(List<String> lines, int round) {
        for (String line : lines) {
            Matcher ack = ACK.matcher(line);
            if (ack.matches()) {
                addAck(Long.parseLong(ack.group(3)),
                        key(round, Integer.parseInt(ack.group(1)), Long.parseLong(ack.group(2))));
            }
        }
    }

    private void addAck(long sequence, long key) {
        if (acks == ackSequences.length) {
            ackSequences = Arrays.copyOf(ackSequences, acks * 2);
            ackKeys = Arrays.copyOf(ackKeys, acks * 2);
        }
        ackSequences[acks] = sequence;
        ackKeys[acks] = key;
        acks++;
    }

    /** Records checked, and acknowledged ones that retention deleted. */
    private record Verified(long records, long retainedAway) {
    }

    /**
     * Reads the whole log: gap-free sequences, intact payloads, rounds in order, and per writer
     * thread its counters one after another with none missing or repeated; then looks up every
     * acknowledged record at its sequence.
     */
    private Verified verify(SegmentLog log, int round) {
        long first = log.firstSequence();
        long last = log.lastSequence();
        long[] keys = new long[Math.toIntExact(last - first + 1)];
        Map<Long, Long> nextCounter = new HashMap<>();
        LogReader reader = log.reader(first);
        long expected = first;
        long previousRound = -1;
        for (LogRecord record = reader.next(); record != null; record = reader.next()) {
            long sequence = record.sequence();
            assertThat(sequence).as("round %d: sequences without a gap", round).isEqualTo(expected);
            long[] key = LogCrashWriter.key(record.copyPayload());
            assertThat(record.subject()).isEqualTo("crash.r" + key[0] + ".t" + key[1]);
            assertThat(key[0]).as("round %d: record %d of a later round, or an earlier after a later", round, sequence)
                    .isBetween(previousRound, (long) round);
            previousRound = key[0];
            long writer = key[0] << 8 | key[1];
            Long next = nextCounter.get(writer);
            if (next == null) {
                // Its first records may have been deleted by retention, never lost in the middle.
                assertThat(key[2] == 0 || first > 1).as("round %d: record %d (%s) starts writer at counter %d",
                        round, sequence, record.subject(), key[2]).isTrue();
            } else {
                assertThat(key[2]).as("round %d: record %d: writer r%d t%d's next counter (none lost, none twice)",
                        round, sequence, key[0], key[1]).isEqualTo(next);
            }
            nextCounter.put(writer, key[2] + 1);
            keys[(int) (sequence - first)] = key(key[0], key[1], key[2]);
            expected++;
        }
        assertThat(expected - 1).as("round %d: read to the last sequence", round).isEqualTo(last);
        long retainedAway = 0;
        for (int i = 0; i < acks; i++) {
            long sequence = ackSequences[i];
            if (sequence < first) {
                retainedAway++;
                continue;
            }
            assertThat(sequence).as("round %d: acknowledged record %s is in the log", round, describe(ackKeys[i]))
                    .isLessThanOrEqualTo(last);
            assertThat(describe(keys[(int) (sequence - first)]))
                    .as("round %d: record at acknowledged sequence %d", round, sequence)
                    .isEqualTo(describe(ackKeys[i]));
        }
        return new Verified(keys.length, retainedAway);
    }

    private static long key(long round, long thread, long counter) {
        return round << 48 | thread << 40 | counter;
    }

    private static String describe(long key) {
        return "r" + (key >>> 48) + " t" + (key >>> 40 & 0xFF) + " c" + (key & ((1L << 40) - 1));
    }

    /** Starts a {@link LogCrashWriter} JVM. */
    private static ChildProcess startWriter(Path dir, FsyncPolicy policy, int round, long maxBytes) throws IOException {
        return ChildProcess.start("crash-writer", List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                LogCrashWriter.class, dir.toString(), policy.name(), Integer.toString(round), Integer.toString(THREADS),
                Long.toString(SEGMENT_BYTES), Long.toString(maxBytes), Long.toString(INTERVAL_MILLIS));
    }

    /** @return {@code {firstSequence, lastSequence}} of the log as the writer opened it (its first line) */
    private static long[] awaitOpened(ChildProcess writer) throws InterruptedException {
        String first = writer.awaitLine(line -> true, 30);
        Matcher opened = OPENED.matcher(first);
        assertThat(opened.matches()).as("first line %s%s", first, writer.diagnostics()).isTrue();
        return new long[] {Long.parseLong(opened.group(1)), Long.parseLong(opened.group(2))};
    }
}
