package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Headers;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.internal.log.LogConfig;
import io.ringbus.core.wire.HeaderNames;
import io.ringbus.testkit.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-key outbox ids across {@code kill -9}: a child appends outbox rows to a stream whose retention
 * keeps 16 messages (so the rows of the first keys are long gone) and is killed mid-stream, round
 * after round on the same store; after each kill every acknowledged row, redelivered, is a duplicate,
 * and nothing is stored twice.
 */
class KeyedDedupCrashTest {
    @TempDir
    Path dir;

    static StreamConfig config() {
        return StreamConfig.of("orders.>").withDuplicateWindow(Duration.ZERO).withMaxMessages(16)
                .withKeyDedupBytes(StreamConfig.DEFAULT_KEY_DEDUP_BYTES);
    }

    static Headers outbox(int row) {
        return Headers.builder().add(HeaderNames.EVENT_ID, "ob-" + row)
                .add(HeaderNames.KEY, row <= 200 ? "cust-" + row : "busy").build();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedRowIsADuplicateAfterAKillNine() throws Exception {
        for (int round = 0; round < 3; round++) {
            int acked;
            try (ChildProcess child = ChildProcess.start("keyed-dedup", List.of("-Xmx128m", "-XX:+UseSerialGC"),
                    KeyedDedupCrashChild.class, dir.toString())) {
                child.awaitLine("ready"::equals, 30);
                child.awaitLine(line -> line.equals("acked 300"), 60);
                assertThat(child.kill()).as("killed by SIGKILL%s", child.diagnostics()).isEqualTo(137);
                acked = child.lines().stream().filter(l -> l.startsWith("acked ")).mapToInt(
                        l -> Integer.parseInt(l.substring(6))).max().orElseThrow();
            }
            try (LocalStorage storage = new LocalStorage(dir, FsyncPolicy.ALWAYS, Duration.ofMillis(20), 64L << 20,
                    LogConfig.DEFAULT_SEGMENT_BYTES)) {
                StoredStream stream = storage.stream(config());
                long last = stream.info().lastSequence();
                assertThat(stream.info().firstSequence()).as("retention removed the first rows").isGreaterThan(200);
                for (int row = 1; row <= acked; row++) {
                    assertThat(stream.append("orders.created", outbox(row), new byte[8], null).join().duplicate())
                            .as("round %d: acknowledged row %d redelivered after the kill", round, row).isTrue();
                }
                assertThat(stream.info().lastSequence()).as("nothing stored twice").isEqualTo(last);
            }
        }
    }
}
