package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Headers;
import io.ringbus.core.StoredMessage;
import io.ringbus.core.StreamConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Purges of one subject ({@code Nats-Rollup: sub}, a purge with a literal filter) read the log from
 * that subject's first message ({@link SubjectLasts#firstOf}), not from the log's first: a roll-up
 * flood on a large stream cost one read of the whole log per message (issue 26's hostile
 * {@code rollup-sub}, 8 roll-ups/s on 200,000 messages). What they remove must stay exactly what a
 * read of the whole log removes.
 */
class SubjectRollUpTest {
    private static final StreamConfig CONFIG = StreamConfig.of("kv.>").withName("KV").withAdmission(
            new StreamConfig.Admission(StreamConfig.Discard.OLD, false, -1, true, false));
    private static final Headers SUB = Headers.of("Nats-Rollup", "sub");
    private static final Headers ALL = Headers.of("Nats-Rollup", "all");

    @TempDir
    Path dir;

    private LocalStorage open() {
        return new LocalStorage(dir, FsyncPolicy.ALWAYS, Duration.ofMillis(100), 1 << 20);
    }

    private static long append(LocalStream stream, String subject, Headers headers) {
        return stream.append(subject, headers, new byte[] {1}, null).join().sequence();
    }

    @Test
    void aSubjectRollUpReadsFromThatSubjectsPreviousRollUp() {
        try (LocalStorage storage = open()) {
            LocalStream stream = (LocalStream) storage.stream(CONFIG);
            for (int i = 0; i < 1_000; i++) {
                append(stream, "kv.other." + i, null);
            }
            long first = append(stream, "kv.a", null);
            append(stream, "kv.a", null);
            assertThat(stream.lasts().firstOf("kv.a")).as("where a purge of kv.a starts").isEqualTo(first);
            assertThat(stream.lasts().firstOf("kv.none")).as("a subject without messages").isZero();

            long rolled = append(stream, "kv.a", SUB);

            assertThat(stream.lasts().firstOf("kv.a")).as("the next roll-up of kv.a starts at this one").isEqualTo(rolled);
            assertThat(stream.read(first)).isNull();
            assertThat(stream.read(first + 1)).isNull();
            assertThat(stream.lastBySubject("kv.a").sequence()).isEqualTo(rolled);
            assertThat(stream.info().messages()).isEqualTo(1_001);
            assertThat(stream.purge("kv.a", 0, 0)).isEqualTo(1);
            assertThat(stream.lasts().firstOf("kv.a")).as("a purge of every kv.a message forgets it").isZero();
            assertThat(stream.lastBySubject("kv.a")).isNull();
            assertThat(stream.purge("kv.a", 0, 0)).isZero();
        }
    }

    /** Random appends, roll-ups, purges, deletes and restarts against a model of what is held. */
    @Test
    void rollUpsAndSubjectPurgesRemoveWhatTheModelRemoves() {
        Random random = new Random(26);
        TreeMap<Long, String> model = new TreeMap<>();
        LocalStorage storage = open();
        try {
            LocalStream stream = (LocalStream) storage.stream(CONFIG);
            for (int step = 0; step < 1_500; step++) {
                String subject = "kv.k" + random.nextInt(8);
                int op = random.nextInt(100);
                if (op < 55) {
                    String actual = random.nextInt(4) == 0 ? "kv.o." + step : subject;
                    model.put(append(stream, actual, null), actual);
                } else if (op < 75) {
                    long sequence = append(stream, subject, SUB);
                    model.entrySet().removeIf(e -> e.getValue().equals(subject));
                    model.put(sequence, subject);
                } else if (op < 78) {
                    long sequence = append(stream, subject, ALL);
                    model.clear();
                    model.put(sequence, subject);
                } else if (op < 88) {
                    int keep = random.nextInt(3);
                    List<Long> of = new ArrayList<>(model.entrySet().stream()
                            .filter(e -> e.getValue().equals(subject)).map(Map.Entry::getKey).toList());
                    long purged = stream.purge(subject, 0, keep);
                    assertThat(purged).as("step %d: purge %s keep %d", step, subject, keep)
                            .isEqualTo(Math.max(0, of.size() - keep));
                    of.subList(Math.max(0, of.size() - keep), of.size()).clear();
                    of.forEach(model::remove);
                } else if (op < 95 && !model.isEmpty()) {
                    long sequence = model.keySet().stream().skip(random.nextInt(model.size())).findFirst().orElseThrow();
                    assertThat(stream.delete(sequence)).isTrue();
                    model.remove(sequence);
                } else if (op >= 95) {
                    storage.close();
                    storage = open();
                    stream = (LocalStream) storage.stream(CONFIG);
                }
                check(stream, model, step);
            }
        } finally {
            storage.close();
        }
    }

    private static void check(LocalStream stream, TreeMap<Long, String> model, int step) {
        for (int k = 0; k < 8; k++) {
            String subject = "kv.k" + k;
            Long newest = model.entrySet().stream().filter(e -> e.getValue().equals(subject))
                    .map(Map.Entry::getKey).max(Long::compare).orElse(null);
            StoredMessage last = stream.lastBySubject(subject);
            assertThat(last == null ? null : last.sequence()).as("step %d: last of %s", step, subject)
                    .isEqualTo(newest);
        }
        if (step % 25 == 0) {
            long lastSequence = stream.info().lastSequence();
            for (long sequence = 1; sequence <= lastSequence; sequence++) {
                assertThat(stream.read(sequence) != null).as("step %d: sequence %d held", step, sequence)
                        .isEqualTo(model.containsKey(sequence));
            }
            assertThat(stream.info().messages()).as("step %d: messages", step).isEqualTo(model.size());
        }
    }
}
