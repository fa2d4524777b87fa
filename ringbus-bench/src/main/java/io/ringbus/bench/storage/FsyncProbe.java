package io.ringbus.bench.storage;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The disk's own fsync rate, the physical limit of one publisher under ALWAYS: append 128 bytes
 * to a file and force it ({@code FileChannel.force(false)}, an {@code fdatasync} as the log's),
 * {@code writes} times, in the directory the stores use.
 */
public final class FsyncProbe {
    /** Bytes per write: the scenario's small payload. */
    static final int BYTES = 128;

    private FsyncProbe() {
    }

    /**
     * @param dir    an existing directory on the disk under test; the file is deleted afterwards
     * @param writes appends, each forced, &gt;= 1
     * @return the rate and its latencies
     * @throws IOException when the file cannot be written
     */
    public static StorageResults.Fsync measure(Path dir, int writes) throws IOException {
        Histogram latencies = new Histogram(RingbusPublish.MAX_LATENCY_NANOS, 3);
        ByteBuffer record = ByteBuffer.allocateDirect(BYTES);
        Path file = dir.resolve("fsync-probe.dat");
        long start;
        long end;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                StandardOpenOption.DELETE_ON_CLOSE)) {
            start = System.nanoTime();
            for (int i = 0; i < writes; i++) {
                long t0 = System.nanoTime();
                record.clear();
                while (record.hasRemaining()) {
                    channel.write(record, (long) i * BYTES + record.position());
                }
                channel.force(false);
                latencies.recordValue(Math.min(System.nanoTime() - t0, RingbusPublish.MAX_LATENCY_NANOS));
            }
            end = System.nanoTime();
        }
        double seconds = (end - start) / 1e9;
        return new StorageResults.Fsync(writes, BYTES, seconds, writes / seconds, RingbusPublish.micros(latencies, 50),
                RingbusPublish.micros(latencies, 99));
    }
}
