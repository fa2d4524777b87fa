package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A local stream's {@link StreamReader} answers every sequence as {@link StoredStream#read} does,
 * whichever way it is moved: forward across segments, back, far ahead, past removed messages, and
 * onto messages appended after it reached the end.
 */
class LocalStreamReaderTest {
    @TempDir
    Path dir;

    private LocalStorage open() {
        // 4 KiB segments: a few dozen messages each, so reads cross segments.
        return new LocalStorage(dir, FsyncPolicy.OS, Duration.ofMillis(100), 1 << 20, 4096);
    }

    private static void put(StoredStream stream, int count) {
        long first = stream.info().lastSequence() + 1;
        for (long seq = first; seq < first + count; seq++) {
            stream.append("r." + (seq % 3), null, ("m" + seq).getBytes(StandardCharsets.UTF_8), null).join();
        }
    }

    private static void sameAsRead(StoredStream stream, StreamReader reader, long seq) {
        StoredMessage expected = stream.read(seq);
        StoredMessage actual = reader.read(seq);
        if (expected == null) {
            assertThat(actual).as("sequence %d", seq).isNull();
            assertThat(reader.subject(seq)).as("subject of %d", seq).isNull();
            return;
        }
        assertThat(actual).as("sequence %d", seq).isNotNull();
        assertThat(actual.sequence()).isEqualTo(seq);
        assertThat(actual.subject()).isEqualTo(expected.subject());
        assertThat(actual.payloadAsString()).isEqualTo(expected.payloadAsString());
        assertThat(actual.timestampMillis()).isEqualTo(expected.timestampMillis());
        assertThat(reader.subject(seq)).isEqualTo(expected.subject());
    }

    @Test
    void readsForwardBackAndFarAheadAsReadDoes() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("r.>"));
            put(stream, 3_000);
            StreamReader reader = stream.newReader();
            for (long seq = 0; seq <= 3_001; seq++) {
                sameAsRead(stream, reader, seq);
            }
            for (long seq : new long[] {10, 9, 2_900, 1_500, 1_501, 1_499, 3_000, 1}) {
                sameAsRead(stream, reader, seq);
            }
            for (long seq = 5; seq <= 3_000; seq += 7) {
                sameAsRead(stream, reader, seq); // skips within a buffer
            }
        }
    }

    @Test
    void removedMessagesAreNotReturnedEvenOnceBuffered() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("r.>"));
            put(stream, 200);
            StreamReader reader = stream.newReader();
            sameAsRead(stream, reader, 40); // the reader's buffer now holds what follows
            assertThat(stream.delete(41)).isTrue();
            assertThat(stream.purge("r.2", 0, 0)).isPositive();
            for (long seq = 41; seq <= 200; seq++) {
                sameAsRead(stream, reader, seq);
            }
            assertThat(reader.read(41)).isNull();
            assertThat(reader.read(44)).as("r.2, purged").isNull();
            assertThat(reader.read(43)).isNotNull();
        }
    }

    @Test
    void followsAppendsAfterReachingTheEnd() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("r.>"));
            put(stream, 5);
            StreamReader reader = stream.newReader();
            sameAsRead(stream, reader, 5);
            assertThat(reader.read(6)).as("not stored yet").isNull();
            put(stream, 500); // several new segments
            for (long seq = 6; seq <= 505; seq++) {
                sameAsRead(stream, reader, seq);
            }
        }
    }

    @Test
    void messagesRetentionDeletedAreGone() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("r.>").withMaxMessages(100));
            StreamReader reader = stream.newReader();
            put(stream, 50);
            sameAsRead(stream, reader, 1);
            put(stream, 1_000);
            long first = stream.info().firstSequence();
            assertThat(first).isGreaterThan(50);
            for (long seq = 2; seq <= 1_050; seq++) {
                sameAsRead(stream, reader, seq);
            }
            assertThat(reader.read(first)).isNotNull();
            assertThat(reader.read(first - 1)).isNull();
        }
    }
}
