package io.ringbus.core.internal.store;

import io.ringbus.core.ConsumerConfig;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.StreamConsumer;
import io.ringbus.core.StreamInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Deletes, purges and the index of subjects of the local store; removals last across a reopen. */
class StreamRemovalsTest {
    @TempDir
    Path dir;

    private LocalStorage open() {
        return new LocalStorage(dir, FsyncPolicy.OS, Duration.ofMillis(100), 1 << 20, 4096);
    }

    private static void put(StoredStream stream, String... subjects) {
        for (String subject : subjects) {
            stream.append(subject, null, subject.getBytes(StandardCharsets.UTF_8), null).join();
        }
    }

    /**
     * A power cut under fsync=os can leave the removals file empty (its rename durable, its data
     * not: bin/soak power-loss, names durable at once): the stream still opens, counted as repaired.
     */
    @Test
    void anEmptyRemovalsFileLeftByACutStillOpens() throws Exception {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            put(stream, "kv.a", "kv.b");
            assertThat(stream.delete(1)).isTrue();
        }
        java.nio.file.Path removed;
        try (var files = java.nio.file.Files.walk(dir)) {
            removed = files.filter(p -> p.getFileName().toString().equals("removed")).findFirst().orElseThrow();
        }
        java.nio.file.Files.write(removed, new byte[0]);
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            assertThat(stream.info().lastSequence()).isEqualTo(2);
            assertThat(storage.fileStats().repairs()).as("counted as repaired").isPositive();
            put(stream, "kv.c");
            assertThat(stream.info().lastSequence()).isEqualTo(3);
        }
    }

    @Test
    void deletedMessageIsGoneForReadersAndAfterReopen() throws InterruptedException {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            put(stream, "kv.a", "kv.b", "kv.a", "kv.c");
            assertThat(stream.delete(3)).isTrue();
            assertThat(stream.delete(3)).as("twice").isFalse();
            assertThat(stream.delete(9)).as("never stored").isFalse();
            assertThat(stream.read(3)).isNull();
            assertThat(stream.lastSequenceOf("kv.a")).as("the one before the deleted newest").isEqualTo(1);
            StreamInfo info = stream.info();
            assertThat(info.messages()).isEqualTo(3);
            assertThat(info.deleted()).isEqualTo(1);
            assertThat(info.firstSequence()).isEqualTo(1);
        }
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            assertThat(stream.read(3)).isNull();
            assertThat(stream.lastBySubject("kv.a").sequence()).isEqualTo(1);
            assertThat(stream.info().messages()).isEqualTo(3);
            assertThat(stream.subjectCount()).isEqualTo(3);
            StreamConsumer consumer = stream.consumer(ConsumerConfig.of("all", "kv.>"));
            List<Long> sequences = consumer.fetch(10, Duration.ofMillis(200)).stream()
                    .map(StoredMessage::sequence).toList();
            assertThat(sequences).containsExactly(1L, 2L, 4L);
        }
    }

    @Test
    void purgeAllThenAppendContinuesTheSequence() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            put(stream, "kv.a", "kv.b", "kv.a");
            assertThat(stream.purge(null, 0, 0)).isEqualTo(3);
            StreamInfo info = stream.info();
            assertThat(info.messages()).isZero();
            assertThat(info.firstSequence()).isEqualTo(4);
            assertThat(info.lastSequence()).isEqualTo(3);
            assertThat(stream.lastBySubject("kv.*")).isNull();
            put(stream, "kv.z");
            assertThat(stream.lastSequenceOf("kv.z")).isEqualTo(4);
        }
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            assertThat(stream.info().messages()).isEqualTo(1);
            assertThat(stream.read(1)).isNull();
            assertThat(stream.read(4).subject()).isEqualTo("kv.z");
        }
    }

    @Test
    void purgeBySubjectKeepAndSequence() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            put(stream, "kv.a", "kv.b", "kv.a", "kv.a", "kv.b", "kv.a");
            assertThat(stream.purge("kv.a", 0, 2)).as("keeps the newest 2 of kv.a").isEqualTo(2);
            assertThat(stream.read(1)).isNull();
            assertThat(stream.read(3)).isNull();
            assertThat(stream.read(4)).isNotNull();
            assertThat(stream.purge("kv.b", 5, 0)).as("kv.b below 5").isEqualTo(1);
            assertThat(stream.read(2)).isNull();
            assertThat(stream.read(5)).isNotNull();
            assertThat(stream.purge(null, 0, 1)).as("keep 1 of all").isEqualTo(2);
            assertThat(stream.info().messages()).isEqualTo(1);
            assertThat(stream.info().firstSequence()).isEqualTo(6);
            assertThat(stream.purge(null, 6, 0)).as("nothing below 6 is left").isZero();
            assertThatThrownBy(() -> stream.purge(null, 3, 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("seq=3");
        }
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            assertThat(stream.info().messages()).isEqualTo(1);
            assertThat(stream.lastSequenceOf("kv.b")).isZero();
            assertThat(stream.lastSequenceOf("kv.a")).isEqualTo(6);
        }
    }

    @Test
    void indexOfSubjectsFollowsAppendsAndWildcards() {
        try (LocalStorage storage = open()) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>"));
            put(stream, "kv.a.1", "kv.b.1");
            assertThat(stream.lastSequenceOf("kv.a.1")).isEqualTo(1);
            put(stream, "kv.a.2", "kv.a.1");
            assertThat(stream.lastSequenceOf("kv.a.1")).isEqualTo(4);
            assertThat(stream.lastBySubject("kv.a.*").sequence()).isEqualTo(4);
            assertThat(stream.lastBySubject("kv.b.>").sequence()).isEqualTo(2);
            assertThat(stream.subjectCount()).isEqualTo(3);
            assertThat(stream.info().subjects()).isEqualTo(3);
        }
    }
}
