package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.PublishAck;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.testkit.ChildProcess;
import io.ringbus.testkit.PowerLossFileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broker's durable subscription and its dead letters across power cuts (issue 30), as an
 * application embeds them: {@value #MESSAGES} messages stored ({@code ALWAYS}), every
 * {@value #BAD_EVERY}th one a message its handler always fails ({@code orders.bad}), which goes to
 * the stored dead-letter subject after {@value DeadLetterCutChild#MAX_DELIVER} tries. Then
 * {@value #ROUNDS} times in a row a broker process ({@link DeadLetterCutChild}) handles
 * {@value #QUIET} messages, closes, opens again and handles on until, at a random instant (fixed
 * seed), it is killed with SIGKILL and the power cut (torn or not); a last process drains.
 *
 * <p>What is asserted: (1) nothing is lost: every {@code ok} message was handled (its handler
 * returned) by some process, every {@code bad} one is in the dead-letter stream; a message given
 * up is never neither; (2) no {@code ok} message is ever dead-lettered; (3) a message handled, or
 * dead-lettered (its dead letter stored and received), before a clean close of the broker is never
 * delivered to the handler again, whatever cuts follow. What was settled after the reopen may be
 * delivered again after the cut, and a bad message dead-lettered again (at least once: the
 * acknowledgements since the consumer's last 50 ms state save): counted and printed, not asserted;
 * (4) the store opens after every cut.
 *
 * <p>The plain acknowledgement path is the one {@link ConsumerAckPowerCutTest} covers (the same
 * consumer state file); what this adds is the broker's: batches fetched ahead of the handler, the
 * acknowledgement when the handler returns, and the dead letter stored before its message is
 * acknowledged.
 */
@Timeout(300)
class DeadLetterPowerCutTest {
    private static final int MESSAGES = 800;
    private static final int BAD_EVERY = 8;
    private static final int ROUNDS = 3;
    private static final int QUIET = 100;
    private static final long SEED = 30_53L;

    @TempDir
    Path work;

    @ParameterizedTest
    @EnumSource(value = PowerLossFileSystem.Mode.class, names = {"POSIX", "FILE"})
    void givenUpMessagesAreDeadLetteredOrStillOwedNeverLost(PowerLossFileSystem.Mode mode) throws Exception {
        Assumptions.assumeTrue(PowerLossFileSystem.available(), PowerLossFileSystem::unavailableReason);
        Random random = new Random(SEED + mode.ordinal());
        try (PowerLossFileSystem fs = PowerLossFileSystem.mount(work.resolve("mnt"), work.resolve("disk"), mode)) {
            Path dir = fs.mountPoint().resolve("data");
            Set<Long> bad = store(dir);
            Set<Long> handled = new HashSet<>();
            Set<Long> settledBeforeAClose = new HashSet<>();
            List<String> report = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                PowerCut cut = PowerCut.draw(random, 20, 400);
                Run run = Run.of(cut.killAndCut(start(dir, "RUN", String.valueOf(QUIET)), "reopened", fs));
                assertThat(run.handledBeforeClose).as("round %d handled before its clean close", round)
                        .hasSizeGreaterThanOrEqualTo(QUIET);
                assertThat(PowerCut.common(run.deliveredBeforeClose, settledBeforeAClose)).as("round %d (%s) "
                        + "delivered again what was settled before an earlier clean close", round, mode).isEmpty();
                settledBeforeAClose.addAll(run.handledBeforeClose);
                settledBeforeAClose.addAll(run.deadBeforeClose);
                assertThat(PowerCut.common(run.deliveredAfterClose, settledBeforeAClose)).as("round %d (%s) "
                        + "delivered again after a clean close what was settled before it", round, mode).isEmpty();
                report.add("round " + round + " (" + cut.describe("reopening") + "): handled " + run.handled.size()
                        + ", dead-lettered " + run.dead.size() + ", delivered again after the previous cut "
                        + PowerCut.common(run.deliveredBeforeClose, handled).size());
                handled.addAll(run.handled);
            }
            Run drain;
            try (ChildProcess child = start(dir, "DRAIN")) {
                child.awaitLine("drained"::equals, 120);
                assertThat(child.awaitExit(60)).isZero();
                drain = Run.of(List.copyOf(child.lines()));
            }
            assertThat(PowerCut.common(drain.deliveredBeforeClose, settledBeforeAClose))
                    .as("the drain delivered again what was settled before a clean close").isEmpty();
            report.add("drain: handled " + drain.handled.size() + ", dead-lettered " + drain.dead.size()
                    + ", delivered again after the last cut " + PowerCut.common(drain.deliveredBeforeClose, handled)
                    .size());
            handled.addAll(drain.handled);
            List<Long> deadLetters = deadLetters(dir);
            Set<Long> distinct = new TreeSet<>(deadLetters);
            report.add("dead letters stored " + deadLetters.size() + " for " + distinct.size() + " messages");
            System.out.println("DeadLetterPowerCutTest " + mode + ": " + String.join("; ", report));
            Set<Long> lost = new TreeSet<>();
            for (long seq = 1; seq <= MESSAGES; seq++) {
                if (bad.contains(seq) ? !distinct.contains(seq) : !handled.contains(seq)) {
                    lost.add(seq);
                }
            }
            assertThat(lost).as("messages neither handled nor dead-lettered (%s; bad ones: every %dth)", mode,
                    BAD_EVERY).isEmpty();
            assertThat(PowerCut.common(distinct, handled)).as("handled messages dead-lettered").isEmpty();
        }
    }

    /** Stores the messages; @return the sequences of the bad ones */
    private static Set<Long> store(Path dir) {
        Set<Long> bad = new TreeSet<>();
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(StreamConfig.of(DeadLetterCutChild.PATTERN));
            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            for (int i = 1; i <= MESSAGES; i++) {
                String subject = i % BAD_EVERY == 0 ? "orders.bad" : "orders.ok";
                acks.add(stream.append(subject, null, ("order " + i).getBytes(StandardCharsets.US_ASCII), null));
            }
            for (int i = 0; i < MESSAGES; i++) {
                long sequence = acks.get(i).join().sequence();
                assertThat(sequence).isEqualTo(i + 1);
                if ((i + 1) % BAD_EVERY == 0) {
                    bad.add(sequence);
                }
            }
        }
        return bad;
    }

    /** @return the original sequence of every dead letter stored, in stream order */
    private static List<Long> deadLetters(Path dir) throws InterruptedException {
        List<Long> sequences = new ArrayList<>();
        try (Storage storage = Storage.local(dir);
             StreamConsumer audit = storage.stream(StreamConfig.of(DeadLetterCutChild.DEAD_PATTERN))
                     .consumer(ConsumerConfig.of("audit", DeadLetterCutChild.DEAD_PATTERN))) {
            for (List<StoredMessage> batch = audit.fetch(500, Duration.ofMillis(200)); !batch.isEmpty();
                 batch = audit.fetch(500, Duration.ofMillis(200))) {
                for (StoredMessage m : batch) {
                    sequences.add(Long.parseLong(m.headers().first("Ringbus-Sequence")));
                    audit.ack(m);
                }
            }
        }
        return sequences;
    }

    private static ChildProcess start(Path dir, String... args) throws java.io.IOException {
        return PowerCut.start("dead-letter-cut", DeadLetterCutChild.class, dir, args);
    }

    /** What one broker process printed, split at its clean close. */
    private record Run(Set<Long> deliveredBeforeClose, Set<Long> deliveredAfterClose, Set<Long> handled,
                       Set<Long> handledBeforeClose, Set<Long> dead, Set<Long> deadBeforeClose) {
        static Run of(List<String> lines) {
            Run run = new Run(new HashSet<>(), new HashSet<>(), new HashSet<>(), new HashSet<>(), new HashSet<>(),
                    new HashSet<>());
            boolean closed = false;
            for (String line : lines) {
                if (line.equals("closed")) {
                    closed = true;
                    continue;
                }
                String[] w = line.split(" ");
                if (w.length < 2) {
                    continue;
                }
                long seq = Long.parseLong(w[1]);
                switch (w[0]) {
                    case "d" -> (closed ? run.deliveredAfterClose : run.deliveredBeforeClose).add(seq);
                    case "h" -> {
                        run.handled.add(seq);
                        if (!closed) {
                            run.handledBeforeClose.add(seq);
                        }
                    }
                    case "x" -> {
                        run.dead.add(seq);
                        if (!closed) {
                            run.deadBeforeClose.add(seq);
                        }
                    }
                    default -> {
                    }
                }
            }
            return run;
        }
    }
}
