package io.ringbus.bench.storage;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.PublishAck;
import io.ringbus.core.StartPosition;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The read side of ringbus's local store: a stream filled with {@code records} messages, then,
 * reopened under the policy, read back by a durable consumer fetching batches and acknowledging every message (replay, and the
 * acknowledgement run at the peer's pull batch), then, the store closed, by a bare log reader
 * (the floor). Not thread-safe: one run at a time.
 */
final class RingbusRead {
    /** The stream's pattern; records go to {@code read.fill}. */
    static final String SUBJECTS = "read.>";

    private final Path storeDir;
    private final FsyncPolicy policy;
    private final Duration interval;
    private final int window;
    private final Duration timeout;

    /**
     * @param storeDir an empty directory for the store (the caller deletes it)
     * @param policy   the store's policy
     * @param interval its INTERVAL force interval
     * @param window   filling: outstanding appends
     * @param timeout  longest a read may take
     */
    RingbusRead(Path storeDir, FsyncPolicy policy, Duration interval, int window, Duration timeout) {
        this.storeDir = storeDir;
        this.policy = policy;
        this.interval = interval;
        this.window = window;
        this.timeout = timeout;
    }

    /**
     * Fills a stream: one publisher, async with a window, every append acknowledged.
     *
     * @param stream       the stream
     * @param records      messages
     * @param payloadBytes each one's payload
     * @param window       outstanding appends
     * @param subject      their subject
     * @return nanoseconds it took
     */
    static long fill(StoredStream stream, long records, int payloadBytes, int window, String subject) {
        byte[] payload = new byte[payloadBytes];
        ArrayDeque<CompletableFuture<PublishAck>> outstanding = new ArrayDeque<>(window);
        long start = System.nanoTime();
        for (long i = 0; i < records; i++) {
            if (outstanding.size() == window) {
                outstanding.pollFirst().join();
            }
            outstanding.addLast(stream.append(subject, null, payload, null));
        }
        for (CompletableFuture<PublishAck> f : outstanding) {
            f.join();
        }
        return System.nanoTime() - start;
    }

    /**
     * Fills a store, reads it with a consumer at each batch (fetch, then ack every message), closes
     * it, and reads its log raw.
     *
     * @param records      messages
     * @param payloadBytes their payload
     * @param replayBatch  the replay consumer's fetch size
     * @param ackBatch     the acknowledgement consumer's fetch size (the peer's pull batch)
     * @return replay by consumer, acknowledgement run, raw log replay; ratios NaN
     */
    List<StorageResults.ReadRow> run(long records, int payloadBytes, int replayBatch, int ackBatch)
            throws InterruptedException {
        StorageResults.ReadRow replay;
        StorageResults.ReadRow acks;
        // Filled under OS (INTERVAL would hold the filler to window / interval); closing forces it all.
        try (Storage storage = Storage.local(storeDir, FsyncPolicy.OS, interval)) {
            fill(storage.stream(StreamConfig.of(SUBJECTS)), records, payloadBytes, window, "read.fill");
        }
        try (Storage storage = Storage.local(storeDir, policy, interval)) {
            StoredStream stream = storage.stream(StreamConfig.of(SUBJECTS));
            replay = consume(stream, "replay", "replay", replayBatch, records);
            acks = consume(stream, "acks", "ack", ackBatch, records);
        }
        Path log = storeDir.resolve("streams").resolve(StreamConfig.of(SUBJECTS).name()).resolve("log");
        RawLogReplay.Replay raw = RawLogReplay.replay(log);
        double seconds = raw.nanos() / 1e9;
        String failure = raw.records() != records || raw.gaps() != 0
                ? String.format(Locale.ROOT, "read %d records with %d gaps, %d stored", raw.records(), raw.gaps(), records)
                : null;
        StorageResults.ReadRow floor = new StorageResults.ReadRow("replay", "ringbus", "raw log reader (floor)",
                raw.records(), seconds, raw.records() / seconds, Double.NaN, failure);
        return List.of(replay, floor, acks);
    }

    private StorageResults.ReadRow consume(StoredStream stream, String durable, String part, int batch, long records)
            throws InterruptedException {
        ConsumerConfig config = new ConsumerConfig(durable, SUBJECTS, StartPosition.all(),
                ConsumerConfig.DEFAULT_ACK_WAIT, ConsumerConfig.DEFAULT_MAX_DELIVER, Math.max(batch,
                ConsumerConfig.DEFAULT_MAX_ACK_PENDING));
        long count = 0;
        long expected = 1;
        long outOfOrder = 0;
        long deadline = System.nanoTime() + timeout.toNanos();
        long start = System.nanoTime();
        try (StreamConsumer consumer = stream.consumer(config)) {
            while (count < records && System.nanoTime() - deadline < 0) {
                List<StoredMessage> messages = consumer.fetch(batch, Duration.ofSeconds(1));
                for (StoredMessage m : messages) {
                    if (m.sequence() != expected) {
                        outOfOrder++;
                    }
                    expected = m.sequence() + 1;
                    consumer.ack(m);
                    count++;
                }
            }
            long nanos = System.nanoTime() - start;
            String failure = count < records ? String.format(Locale.ROOT, "read %d of %d within %s", count, records,
                    timeout) : outOfOrder > 0 ? outOfOrder + " messages out of stream order" : null;
            if (failure == null && consumer.stats().ackFloor() != records) {
                failure = "ack floor " + consumer.stats().ackFloor() + " after acknowledging " + records;
            }
            double seconds = nanos / 1e9;
            return new StorageResults.ReadRow(part, "ringbus", "durable consumer, fetch " + batch + " + ack each",
                    count, seconds, count / seconds, Double.NaN, failure);
        }
    }
}
