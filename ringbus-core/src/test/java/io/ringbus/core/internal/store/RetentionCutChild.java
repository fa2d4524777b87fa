package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The process {@link RetentionPowerCutTest} kills: a local store ({@code ALWAYS}, {@value #SEGMENT_BYTES}
 * B segments) with three streams whose retention deletes segments as they go: {@link #EVENTS}
 * ({@code max_messages} 64, so a segment every 8), {@link #METRICS} ({@code max_bytes} 8 KiB, 1 KiB
 * segments) and {@link #JOBS}, a work queue read by the durable consumer {@value #WORKER}. One
 * thread, in turn: appends to each stream and waits for the acknowledgement, then has the worker
 * fetch and acknowledge one job. Runs in a JVM of its own.
 *
 * <p>Prints {@code a <stream> <sequence> <id> <first>} once an append is acknowledged, {@code first}
 * being the stream's first sequence read right after (retention ran in the append, at a roll, and
 * the acknowledgement came after its deletions were made durable); {@code d <sequence>} when the
 * worker got a job and {@code w <sequence>} once it acknowledged it; {@code first <stream> <first>}
 * just before a clean close.
 *
 * <p>Arguments: {@code <dir> RUN <round> <quiet>}: {@code quiet} turns, a pause for the work
 * queue's compaction (every 50 ms), {@code first} lines, a clean close, {@code closed}; then opens
 * the store again, prints {@code reopened} and goes on, pausing 1 ms per turn, until killed. Ids
 * are {@code r<round>-<n>}. {@code <dir> DRAIN}: the worker acknowledges until nothing came for
 * 1 s, then the store is closed and {@code drained} printed.
 */
final class RetentionCutChild {
    static final long SEGMENT_BYTES = 2048;
    static final StreamConfig EVENTS = StreamConfig.of("events.>").withMaxMessages(64);
    static final StreamConfig METRICS = StreamConfig.of("metrics.>").withMaxBytes(8192);
    static final StreamConfig JOBS = StreamConfig.of("jobs.>").withRetention(StreamConfig.Retention.WORK_QUEUE);
    static final List<StreamConfig> STREAMS = List.of(EVENTS, METRICS, JOBS);
    static final String WORKER = "worker";

    private RetentionCutChild() {
    }

    /** @return the store as every process of the test opens it */
    static LocalStorage open(Path dir) {
        return new LocalStorage(dir, FsyncPolicy.ALWAYS, Duration.ofMillis(100), Storage.DEFAULT_MAX_PENDING_BYTES,
                SEGMENT_BYTES);
    }

    /** @return the id a record's payload holds */
    static String id(StoredMessage message) {
        return new String(message.payload(), StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        if (args[1].equals("DRAIN")) {
            try (LocalStorage storage = open(dir)) {
                StreamConsumer worker = storage.stream(JOBS)
                        .consumer(ConsumerConfig.of(WORKER, JOBS.subjects().getFirst()));
                for (List<StoredMessage> got = worker.fetch(1, Duration.ofSeconds(1)); !got.isEmpty();
                     got = worker.fetch(1, Duration.ofSeconds(1))) {
                    work(worker, got);
                }
            }
            ChildLines.print("drained");
            return;
        }
        String round = args[2];
        long quiet = Long.parseLong(args[3]);
        long n = 0;
        try (LocalStorage storage = open(dir)) {
            Turn turn = new Turn(storage);
            for (; n < quiet; n++) {
                turn.run("r" + round + "-" + n);
            }
            Thread.sleep(3 * LocalStorage.STATE_SAVE_MILLIS); // the work queue compacts at the saves
            for (StreamConfig config : STREAMS) {
                ChildLines.print("first " + config.name() + " " + storage.stream(config).info().firstSequence());
            }
        }
        ChildLines.print("closed");
        Turn turn = new Turn(open(dir)); // never closed: the test kills the process
        ChildLines.print("reopened");
        for (; ; n++) {
            turn.run("r" + round + "-" + n);
            Thread.sleep(1);
        }
    }

    private static void work(StreamConsumer worker, List<StoredMessage> got) {
        for (StoredMessage m : got) {
            ChildLines.print("d " + m.sequence());
            worker.ack(m);
            ChildLines.print("w " + m.sequence());
        }
    }

    /** One turn: an acknowledged append to each stream, one job worked. */
    private static final class Turn {
        private final List<StoredStream> streams;
        private final StreamConsumer worker;

        Turn(LocalStorage storage) {
            streams = STREAMS.stream().map(storage::stream).toList();
            worker = streams.get(2).consumer(ConsumerConfig.of(WORKER, JOBS.subjects().getFirst()));
        }

        void run(String id) throws InterruptedException {
            for (StoredStream stream : streams) {
                String subject = stream.config().subjects().getFirst().replace(">", "x");
                long sequence = stream.append(subject, null, id.getBytes(StandardCharsets.US_ASCII), null).join()
                        .sequence();
                ChildLines.print("a " + stream.config().name() + " " + sequence + " " + id + " "
                        + stream.info().firstSequence());
            }
            work(worker, worker.fetch(1, Duration.ZERO));
        }
    }
}
