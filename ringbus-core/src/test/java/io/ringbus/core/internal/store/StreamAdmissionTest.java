package io.ringbus.core.internal.store;

import io.ringbus.core.Headers;
import io.ringbus.core.PublishAck;
import io.ringbus.core.PublishRejectedException;
import io.ringbus.core.Storage;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a local stream admits ({@link StreamConfig.Admission}) and the expectations a message carries,
 * through the store's own API: each refusal is JetStream's error and stores nothing.
 */
class StreamAdmissionTest {
    @TempDir
    Path dir;

    @Test
    void expectationsAreCheckedAgainstTheStreamAsItIs() {
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>").withName("KV"));
            assertThat(append(stream, "kv.a", Headers.of("Nats-Expected-Last-Subject-Sequence", "0"))).isEqualTo(1);
            assertRefused(ack(stream, "kv.a", Headers.of("Nats-Expected-Last-Subject-Sequence", "0")), 10071,
                    "wrong last sequence: 1");
            assertThat(append(stream, "kv.b", Headers.of("Nats-Expected-Last-Sequence", "1"))).isEqualTo(2);
            assertRefused(ack(stream, "kv.b", Headers.of("Nats-Expected-Last-Sequence", "1")), 10071,
                    "wrong last sequence: 2");
            assertRefused(ack(stream, "kv.b", Headers.of("Nats-Expected-Stream", "OTHER")), 10060,
                    "expected stream does not match");
            assertThat(append(stream, "kv.c", Headers.of("Nats-Msg-Id", "m1"))).isEqualTo(3);
            assertRefused(ack(stream, "kv.c", Headers.of("Nats-Expected-Last-Msg-Id", "m0")), 10070,
                    "wrong last msg ID: m1");
            assertRefused(ack(stream, "kv.c", Headers.of("Nats-Rollup", "sub")), 10111, "rollup not permitted");
            assertThat(stream.info().lastSequence()).as("nothing refused was stored").isEqualTo(3);
        }
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(StreamConfig.of("kv.>").withName("KV"));
            assertRefused(ack(stream, "kv.c", Headers.of("Nats-Expected-Last-Msg-Id", "m0")), 10070,
                    "wrong last msg ID: m1"); // read back from the log after a restart
        }
    }

    @Test
    void rollUpsKeepOnlyTheNewMessageOfTheSubjectOrOfTheStream() {
        StreamConfig config = StreamConfig.of("kv.>").withName("KV").withAdmission(
                new StreamConfig.Admission(StreamConfig.Discard.OLD, false, -1, true, false));
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(config);
            append(stream, "kv.a", null);
            append(stream, "kv.b", null);
            append(stream, "kv.a", null);
            long purge = append(stream, "kv.a", Headers.of("Nats-Rollup", "sub"));
            assertThat(stream.read(1)).isNull();
            assertThat(stream.read(3)).isNull();
            assertThat(stream.read(2)).isNotNull();
            assertThat(stream.lastBySubject("kv.a").sequence()).isEqualTo(purge);
            long all = append(stream, "kv.c", Headers.of("Nats-Rollup", "all"));
            assertThat(stream.info().messages()).isEqualTo(1);
            assertThat(stream.info().firstSequence()).isEqualTo(all);
        }
    }

    @Test
    void discardNewRefusesPastTheLimitsAndKeepsWhatItHas() {
        StreamConfig config = StreamConfig.of("jobs").withName("JOBS").withMaxBytes(4096).withMaxMessages(3)
                .withAdmission(new StreamConfig.Admission(StreamConfig.Discard.NEW, false, 100, false, false));
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(config);
            assertRefused(stream.append("jobs", null, new byte[101], null), 10054,
                    "message size exceeds maximum allowed");
            for (int i = 0; i < 3; i++) {
                append(stream, "jobs", null);
            }
            assertRefused(ack(stream, "jobs", null), 10077, "maximum messages exceeded");
            assertThat(stream.info().firstSequence()).as("discard new keeps the oldest").isEqualTo(1);
        }
        StreamConfig bytes = StreamConfig.of("big").withName("BIG").withMaxBytes(2048)
                .withAdmission(new StreamConfig.Admission(StreamConfig.Discard.NEW, false, -1, false, false));
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(bytes);
            int stored = 0;
            while (!stream.append("big", null, new byte[300], null).isCompletedExceptionally()) {
                stored++;
            }
            assertRefused(stream.append("big", null, new byte[300], null), 10077, "maximum bytes exceeded");
            assertThat(stored).isBetween(3, 6);
            assertThat(stream.info().messages()).isEqualTo(stored);
            assertThat(stream.info().bytes()).isLessThan(2048);
        }
    }

    @Test
    void aSealedStreamRefusesEveryMessageAndSeveralPatternsRouteToOneStream() {
        StreamConfig config = StreamConfig.of("obj.chunks.>").withName("OBJ")
                .withSubjects(List.of("obj.chunks.>", "obj.meta.>"));
        try (Storage storage = Storage.local(dir)) {
            StoredStream stream = storage.stream(config);
            append(stream, "obj.chunks.1", null);
            append(stream, "obj.meta.a", null);
            assertThatThrownBy(() -> stream.append("obj.other", null, new byte[1], null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("obj.other");
        }
        try (Storage storage = Storage.local(dir)) {
            StoredStream sealed = storage.reconfigure(config.withAdmission(
                    new StreamConfig.Admission(StreamConfig.Discard.NEW, false, -1, false, true)));
            assertRefused(ack(sealed, "obj.meta.b", null), 10109, "invalid operation on sealed stream");
            assertThat(sealed.info().messages()).isEqualTo(2);
            assertThatThrownBy(() -> storage.stream(config.withSubjects(List.of("obj.chunks.>"))))
                    .as("opened again for other patterns").isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> config.withSubjects(List.of("a.>", "a.b"))).isInstanceOf(
                IllegalArgumentException.class).hasMessageContaining("overlap");
    }

    private static long append(StoredStream stream, String subject, Headers headers) {
        return ack(stream, subject, headers).join().sequence();
    }

    private static CompletableFuture<PublishAck> ack(StoredStream stream, String subject, Headers headers) {
        return stream.append(subject, headers, "v".getBytes(StandardCharsets.UTF_8),
                headers == null ? null : headers.first("Nats-Msg-Id"));
    }

    private static void assertRefused(CompletableFuture<?> ack, int code, String description) {
        assertThatThrownBy(ack::join).isInstanceOf(CompletionException.class).cause()
                .isInstanceOfSatisfying(PublishRejectedException.class, e -> {
                    assertThat(e.errorCode()).isEqualTo(code);
                    assertThat(e.getMessage()).isEqualTo(description);
                });
    }
}
