package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.StartPosition;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.core.internal.log.LogConfig;
import io.ringbus.core.internal.log.SegmentLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A restart with ten million records: the store opens, recovers only the tail, and a consumer reads
 * the last records. The restart time is printed, not asserted (a busy machine must not fail it; the
 * storage benchmark measures it).
 */
class LocalStorageRestartTest {
    private static final int RECORDS = 10_000_000;

    @TempDir
    Path dir;

    @Test
    void reopensTenMillionRecordsAndReadsTheTail() throws Exception {
        StreamConfig config = StreamConfig.of("bulk.>");
        Path streamDir = dir.resolve("streams").resolve(config.name());
        Files.createDirectories(streamDir);
        Files.writeString(streamDir.resolve("subjects"), String.join("\n", config.subjects()) + "\n",
                StandardCharsets.UTF_8);
        byte[] payload = new byte[16];
        try (SegmentLog log = SegmentLog.open(streamDir.resolve("log"), LogConfig.builder().policy(FsyncPolicy.OS)
                .build())) {
            for (int i = 1; i <= RECORDS; i++) {
                ByteBuffer.wrap(payload).putInt(0, i);
                log.append("bulk.a", null, payload);
            }
        }
        long start = System.nanoTime();
        try (LocalStorage storage = new LocalStorage(dir, FsyncPolicy.ALWAYS, Duration.ofMillis(100), 1 << 20)) {
            StoredStream stream = storage.stream(config);
            long openedNanos = System.nanoTime() - start;
            assertThat(stream.info().lastSequence()).isEqualTo(RECORDS);
            assertThat(stream.info().messages()).isEqualTo(RECORDS);
            long next = stream.append("bulk.b", null, new byte[] {1}, null).join().sequence();
            assertThat(next).isEqualTo(RECORDS + 1);
            try (StreamConsumer tail = stream.consumer(new ConsumerConfig("tail", "bulk.>",
                    StartPosition.sequence(RECORDS - 9), ConsumerConfig.DEFAULT_ACK_WAIT, 5, 100))) {
                List<StoredMessage> got = new ArrayList<>();
                while (got.size() < 11) {
                    got.addAll(tail.fetch(11 - got.size(), Duration.ofSeconds(5)));
                }
                assertThat(got.get(0).sequence()).isEqualTo(RECORDS - 9);
                assertThat(ByteBuffer.wrap(got.get(9).payload()).getInt(0)).isEqualTo(RECORDS);
                assertThat(got.get(10).subject()).isEqualTo("bulk.b");
            }
            System.out.printf("restart with %,d records (%,d bytes): store and stream open in %d ms%n", RECORDS,
                    stream.info().bytes(), openedNanos / 1_000_000);
        }
    }
}
