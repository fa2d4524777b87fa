package io.ringbus.core.internal.store;

import io.ringbus.core.internal.log.LogConfig;
import io.ringbus.core.internal.log.LogReader;
import io.ringbus.core.internal.log.LogRecord;
import io.ringbus.core.internal.log.SegmentLog;
import io.ringbus.testkit.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 17's crash test for durable subjects and consumers: a broker JVM ({@link DurableCrashBroker})
 * publishes to a durable subject from several threads while its durable subscription consumes the
 * stream, and is killed with SIGKILL at a random moment (mid-append, mid-fsync, mid-ack, mid state
 * save), round after round on the same store. After every kill the stream's log is reopened here:
 * every message whose {@code publish} returned is in it exactly once, intact, with gap-free
 * sequences and each publisher's messages in order; the consumer's state file is intact and its ack
 * floor never goes back. Across rounds the consumer delivers each message first in stream order
 * (so per publisher in order), again only as a redelivery after a restart, never twice in one
 * process; a last run without a kill catches up with the whole stream, and one after its clean
 * close delivers nothing.
 */
class DurableCrashTest {
    private static final long SEED = 17;
    private static final int ROUNDS = 10;
    private static final int PUBLISHERS = 3;

    @TempDir
    Path tmp;

    /** Keys whose publish returned, as reported by the broker JVMs. */
    private final Set<String> acked = new HashSet<>();
    /** Stream sequence to key, as the log held it at the last check (a record never changes). */
    private final List<String> keyAt = new ArrayList<>(List.of(""));
    private final Map<String, Long> sequenceOf = new HashMap<>();
    /** Keys delivered at least once, and per publisher the next message due for its first delivery. */
    private final Set<String> delivered = new HashSet<>();
    private final Map<String, Long> nextFirst = new HashMap<>();
    private long lastFirstSequence;
    private long highestDelivered;
    private long duplicates;
    private long deliveries;
    private long savedFloor;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyAcknowledgedMessageIsStoredOnceAndDeliveredAtLeastOnceAcrossKillNine() throws Exception {
        Path dir = tmp.resolve("store");
        Random random = new Random(SEED);
        StringBuilder figures = new StringBuilder();
        for (int round = 0; round < ROUNDS; round++) {
            // Now and then kill it early: while it redelivers what the last run left unacknowledged.
            long runMillis = random.nextInt(4) == 0 ? 10 + random.nextInt(90) : 150 + random.nextInt(750);
            int ackedBefore = acked.size();
            long duplicatesBefore = duplicates;
            long deliveriesBefore = deliveries;
            List<String> lines;
            try (ChildProcess child = start(dir, "RUN", round)) {
                child.awaitLine("ready"::equals, 30);
                Thread.sleep(runMillis);
                int exit = child.kill();
                assertThat(exit).as("round %d: killed by SIGKILL (128 + 9)%s", round, child.diagnostics())
                        .isEqualTo(137);
                lines = child.lines();
            }
            collectAcks(lines);
            verifyStore(dir, round);
            verifyDeliveries(lines, round);
            figures.append(String.format("%n  round %2d, run %3d ms: %5d acks, %5d deliveries (%d redelivered), "
                            + "log 1..%d, consumer floor %d", round, runMillis, acked.size() - ackedBefore,
                    deliveries - deliveriesBefore, duplicates - duplicatesBefore, keyAt.size() - 1, savedFloor));
        }
        assertThat(acked).as("messages acknowledged in %d rounds", ROUNDS).hasSizeGreaterThan(ROUNDS * 10);

        // No kill: the consumer catches up with everything stored, then the broker closes cleanly.
        long deliveriesBefore = deliveries;
        long duplicatesBefore = duplicates;
        drain(dir, ROUNDS);
        long last = keyAt.size() - 1;
        assertThat(lastFirstSequence).as("caught up: the last first delivery is the stream's last message")
                .isEqualTo(last);
        assertThat(delivered).as("caught up: every stored message delivered").hasSize((int) last);
        assertThat(delivered).as("every acknowledged message delivered").containsAll(acked);
        figures.append(String.format("%n  drain: %d deliveries (%d redelivered)", deliveries - deliveriesBefore,
                duplicates - duplicatesBefore));

        // Its state was saved at close: a restart delivers nothing.
        deliveriesBefore = deliveries;
        drain(dir, ROUNDS + 1);
        assertThat(deliveries - deliveriesBefore).as("deliveries after a clean close and restart").isZero();

        System.out.printf("DurableCrashTest: %d kills, %d messages acknowledged, 0 lost, 0 stored twice, "
                        + "%d stored in all (acknowledged or in flight at a kill), %d deliveries, "
                        + "%d redelivered after a restart%s%n", ROUNDS, acked.size(), last, deliveries, duplicates,
                figures);
    }

    private void drain(Path dir, int round) throws Exception {
        try (ChildProcess child = start(dir, "DRAIN", round)) {
            child.awaitLine("closed"::equals, 60);
            assertThat(child.awaitExit(30)).as("drain run's exit status%s", child.diagnostics()).isZero();
            verifyStore(dir, round);
            verifyDeliveries(child.lines(), round);
        }
    }

    private void collectAcks(List<String> lines) {
        for (String line : lines) {
            if (line.startsWith("a ")) {
                acked.add(line.substring(2));
            }
        }
    }

    /**
     * Reads the whole stream: sequences from 1 without a gap, payloads intact, no key twice, each
     * publisher's messages one after another from its first; every earlier record unchanged and
     * every acknowledged key present. Then checks the consumer's state file.
     */
    private void verifyStore(Path dir, int round) throws IOException {
        Path streamDir = dir.resolve("streams").resolve(DurableCrashBroker.STREAM);
        Map<String, Long> nextOfPublisher = new HashMap<>();
        long last;
        try (SegmentLog log = SegmentLog.open(streamDir.resolve("log"), LogConfig.defaults())) {
            assertThat(log.stats().corruptRecordsSkipped()).as("round %d: a process kill corrupts no record", round)
                    .isZero();
            assertThat(log.firstSequence()).as("round %d: first sequence", round).isEqualTo(1);
            last = log.lastSequence();
            assertThat(last).as("round %d: the stream never shrinks", round).isGreaterThanOrEqualTo(keyAt.size() - 1);
            LogReader reader = log.reader(1);
            long expected = 1;
            for (LogRecord record = reader.next(); record != null; record = reader.next()) {
                long sequence = record.sequence();
                assertThat(sequence).as("round %d: sequences without a gap", round).isEqualTo(expected);
                String key = DurableCrashBroker.key(record.copyPayload());
                String publisher = key.substring(0, key.indexOf('-'));
                long n = Long.parseLong(key.substring(key.indexOf('-') + 1));
                assertThat(record.subject()).isEqualTo("orders.t" + publisher.substring(publisher.indexOf('p') + 1));
                assertThat(n).as("round %d: record %d (%s): its publisher's next message, none lost, none twice",
                        round, sequence, key).isEqualTo(nextOfPublisher.getOrDefault(publisher, 0L));
                nextOfPublisher.put(publisher, n + 1);
                if (sequence < keyAt.size()) {
                    assertThat(key).as("round %d: record %d is what it was", round, sequence)
                            .isEqualTo(keyAt.get((int) sequence));
                } else {
                    keyAt.add(key);
                    sequenceOf.put(key, sequence);
                }
                expected++;
            }
            assertThat(expected - 1).as("round %d: read to the last sequence", round).isEqualTo(last);
        }
        for (String key : acked) {
            assertThat(sequenceOf).as("round %d: acknowledged message %s is stored", round, key).containsKey(key);
        }
        ConsumerStateFile.Saved saved = new ConsumerStateFile(streamDir.resolve("consumers")
                .resolve(DurableCrashBroker.CONSUMER + ".state"), false).load();
        if (saved == null) {
            return; // killed before the consumer's first save
        }
        assertThat(saved.filter()).isEqualTo(DurableCrashBroker.PATTERN);
        assertThat(saved.delivered()).as("round %d: saved delivered position", round).isBetween(0L, last);
        for (long sequence : saved.unacked().keySet()) {
            assertThat(sequence).as("round %d: saved unacknowledged sequence", round).isBetween(1L, saved.delivered());
        }
        long floor = saved.unacked().isEmpty() ? saved.delivered() : saved.unacked().keySet().iterator().next() - 1;
        assertThat(floor).as("round %d: the saved ack floor never goes back", round).isGreaterThanOrEqualTo(savedFloor);
        savedFloor = floor;
    }

    /**
     * One run's deliveries: each of a message the log holds at that sequence, none twice in the
     * run; a message delivered in an earlier run comes again only from before that run's highest
     * delivery (a redelivery), any other in stream order, so per publisher in order.
     */
    private void verifyDeliveries(List<String> lines, int round) {
        Set<String> thisRun = new HashSet<>();
        long highest = highestDelivered;
        for (String line : lines) {
            if (!line.startsWith("d ")) {
                continue;
            }
            String[] parts = line.split(" ");
            long sequence = Long.parseLong(parts[1]);
            String key = parts[3];
            deliveries++;
            assertThat(sequenceOf.get(key)).as("round %d: delivered %s at the sequence it is stored at", round, key)
                    .isEqualTo(sequence);
            assertThat(thisRun.add(key)).as("round %d: %s delivered twice in one run", round, key).isTrue();
            highest = Math.max(highest, sequence);
            if (!delivered.add(key)) {
                duplicates++;
                assertThat(sequence).as("round %d: %s redelivered: it was delivered before the restart", round, key)
                        .isLessThanOrEqualTo(highestDelivered);
                continue;
            }
            assertThat(sequence).as("round %d: first delivery of %s in stream order", round, key)
                    .isGreaterThan(lastFirstSequence);
            lastFirstSequence = sequence;
            String publisher = key.substring(0, key.indexOf('-'));
            long n = Long.parseLong(key.substring(key.indexOf('-') + 1));
            assertThat(n).as("round %d: first delivery of %s: its publisher's next", round, key)
                    .isEqualTo(nextFirst.getOrDefault(publisher, 0L));
            nextFirst.put(publisher, n + 1);
        }
        highestDelivered = highest;
    }

    private static ChildProcess start(Path dir, String mode, int round) throws IOException {
        return ChildProcess.start("crash-broker", List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                DurableCrashBroker.class, dir.toString(), mode, Integer.toString(round), Integer.toString(PUBLISHERS));
    }
}
