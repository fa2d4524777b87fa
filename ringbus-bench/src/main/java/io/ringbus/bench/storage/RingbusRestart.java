package io.ringbus.bench.storage;

import io.ringbus.bench.Median;
import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Restart time of ringbus's local store against the log's size: a stream is filled to a size and
 * the store closed; then, {@code runs} times, the store is opened, the stream opened and a durable
 * consumer reads the first record, and the store is closed again. The log was just written, so its
 * pages are in the page cache (as after a process restart, not after a reboot).
 */
final class RingbusRestart {
    /** The stream's pattern. */
    static final String SUBJECTS = "restart.>";
    private static final long FILL_CHUNK = 100_000;

    private final FsyncPolicy policy;
    private final Duration interval;
    private final int window;

    /**
     * @param policy   the store's policy
     * @param interval its INTERVAL force interval
     * @param window   filling: outstanding appends
     */
    RingbusRestart(FsyncPolicy policy, Duration interval, int window) {
        this.policy = policy;
        this.interval = interval;
        this.window = window;
    }

    /**
     * Fills a stream in {@code dir} until its log holds {@code bytes}.
     *
     * @param dir          an empty directory
     * @param bytes        the log's size wanted
     * @param payloadBytes per record
     * @return the records written
     */
    long fill(Path dir, long bytes, int payloadBytes) {
        // Filled under OS (INTERVAL would hold the filler to window / interval); closing forces it all.
        try (Storage storage = Storage.local(dir, FsyncPolicy.OS, interval)) {
            StoredStream stream = storage.stream(StreamConfig.of(SUBJECTS));
            // A record takes its payload, the subject and a frame's 38 bytes; the last chunk tops up.
            long perRecord = payloadBytes + "restart.fill".length() + 38;
            for (long left = bytes; left > 0; left = bytes - stream.info().bytes()) {
                RingbusRead.fill(stream, Math.min(FILL_CHUNK, left / perRecord + 1), payloadBytes, window,
                        "restart.fill");
            }
            return stream.info().messages();
        }
    }

    /**
     * Opens the store in {@code dir} {@code runs} times, reading the first record each time.
     *
     * @param dir     a store that {@link #fill} filled
     * @param records the records it holds
     * @param runs    restarts, &gt;= 1
     * @return the median restart, and the slowest
     */
    StorageResults.RestartRow restart(Path dir, long records, int runs) throws InterruptedException {
        double[] open = new double[runs];
        double[] stream = new double[runs];
        double[] first = new double[runs];
        long bytes = 0;
        String failure = null;
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            try (Storage storage = Storage.local(dir, policy, interval)) {
                long opened = System.nanoTime();
                StoredStream s = storage.stream(StreamConfig.of(SUBJECTS));
                long streamed = System.nanoTime();
                try (StreamConsumer consumer = s.consumer(ConsumerConfig.of("restart" + i, SUBJECTS))) {
                    List<StoredMessage> messages = consumer.fetch(1, Duration.ofSeconds(10));
                    long read = System.nanoTime();
                    if (messages.isEmpty() || messages.getFirst().sequence() != 1) {
                        failure = "the first record was not read back: " + messages;
                    }
                    open[i] = (opened - start) / 1e6;
                    stream[i] = (streamed - start) / 1e6;
                    first[i] = (read - start) / 1e6;
                }
                bytes = s.info().bytes();
                if (s.info().messages() != records) {
                    failure = "the log holds " + s.info().messages() + " records after the restart, " + records
                            + " before";
                }
            }
        }
        double slowest = 0;
        for (double f : first) {
            slowest = Math.max(slowest, f);
        }
        return new StorageResults.RestartRow("ringbus", bytes, records, runs, Median.of(open), Median.of(stream),
                Median.of(first), slowest, failure);
    }
}
