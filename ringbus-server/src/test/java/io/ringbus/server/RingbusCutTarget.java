package io.ringbus.server;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * ringbus-server forked ({@link ForkedServer}) with {@code --durable 'orders.>=max_bytes=..'} and
 * a {@code --fsync} policy ({@code interval}: every {@link #FSYNC_INTERVAL}); read back in process
 * through {@link Storage#local} with a throwaway durable consumer whose state file is deleted
 * afterwards.
 */
final class RingbusCutTarget implements PowerCutTarget {
    /** The force interval of {@code --fsync interval} (the server's default). */
    static final Duration FSYNC_INTERVAL = Duration.ofMillis(100);
    /**
     * What {@code fsync=interval} may lose, as asserted: a lost acknowledgement arrived less than
     * this before the kill. The window itself is the interval, plus how late the flusher wakes, plus
     * two forces (the one running when a record was appended does not cover it; the next starts an
     * interval after that one ended). On a loaded 2-core VM ({@code perf trace} of the server's
     * fsyncs during {@code bin/soak power-loss}, docs/storage.md "Power loss") a force took 2.5 ms
     * median, 138 ms at most, and the oldest lost acknowledgement was 166 ms old. The bound adds
     * room for a slower, busier CI machine and stays far below what losing a whole server life
     * shows (lives of 1.6 s and more in the test: {@code os} fails it at about 2 s).
     */
    static final Duration INTERVAL_LOSS_BOUND = FSYNC_INTERVAL.plusMillis(900);

    private final FsyncPolicy policy;
    private final long maxBytes;
    private ForkedServer server;
    private int reads;

    /**
     * @param policy   the store's fsync policy
     * @param maxBytes the stream's {@code max_bytes}: its segments roll at an eighth of it
     */
    RingbusCutTarget(FsyncPolicy policy, long maxBytes) {
        this.policy = policy;
        this.maxBytes = maxBytes;
    }

    @Override
    public String server() {
        return "ringbus";
    }

    @Override
    public String policy() {
        return policy.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public int start(Path dir) {
        server = ForkedServer.start("192m", "--durable", SUBJECTS + "=max_bytes=" + maxBytes,
                "--storage-dir", dir.toString(), "--fsync", policy(),
                "--fsync-interval", FSYNC_INTERVAL.toMillis() + "ms");
        return server.port();
    }

    @Override
    public void kill() {
        if (server != null) {
            server.close(); // SIGKILL, waits for the exit
            server = null;
        }
    }

    @Override
    public List<StoredId> readBack(Path dir) throws IOException {
        String name = "powercut-check-" + ++reads;
        List<StoredId> out = new ArrayList<>();
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(StreamConfig.of(SUBJECTS).withMaxBytes(maxBytes));
            long last = stream.info().lastSequence();
            try (StreamConsumer reader = stream.consumer(ConsumerConfig.of(name, SUBJECTS))) {
                long seen = stream.info().firstSequence() - 1;
                while (seen < last) {
                    List<StoredMessage> batch = reader.fetch(1_000, Duration.ofSeconds(2));
                    if (batch.isEmpty()) {
                        break; // the rest was deleted by retention meanwhile: nothing more to read
                    }
                    for (StoredMessage m : batch) {
                        out.add(new StoredId(m.sequence(), PowerCutLedger.idOf(
                                new String(m.payload(), StandardCharsets.US_ASCII))));
                        reader.ack(m);
                        seen = m.sequence();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted reading " + dir, e);
        }
        Path consumers = dir.resolve("streams").resolve(STREAM).resolve("consumers");
        Files.deleteIfExists(consumers.resolve(name + ".state"));
        Files.deleteIfExists(consumers.resolve(name + ".state.tmp"));
        return out;
    }
}
