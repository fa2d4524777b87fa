package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Headers;
import io.ringbus.core.internal.log.LogConfig;
import io.ringbus.core.internal.log.SegmentLog;
import io.ringbus.core.wire.HeaderNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class DuplicatesTest {
    private static final long WINDOW = Duration.ofMinutes(2).toMillis();

    @Test
    void rebuildRemembersTheIdsOfTheLastRecordsOfTheWindowOnly(@TempDir Path dir) {
        try (SegmentLog log = SegmentLog.open(dir, LogConfig.builder().policy(FsyncPolicy.OS).build())) {
            for (int i = 1; i <= 30; i++) {
                byte[] headers = i % 5 == 0 ? null : Headers.of(HeaderNames.MSG_ID, "id-" + i).toNatsBlock();
                log.append("orders.eu", headers, ("m" + i).getBytes(StandardCharsets.UTF_8));
            }
            Duplicates duplicates = new Duplicates(WINDOW);
            duplicates.rebuild(log, WINDOW, 10);
            long now = System.currentTimeMillis();

            assertThat(duplicates.sequenceOf("id-30", now)).isZero(); // no id: no header
            assertThat(duplicates.sequenceOf("id-29", now)).isEqualTo(29);
            assertThat(duplicates.sequenceOf("id-21", now)).isEqualTo(21);
            assertThat(duplicates.sequenceOf("id-20", now)).isZero();
            assertThat(duplicates.sequenceOf("id-19", now)).as("older than the last 10 records").isZero();
        }
    }

    @Test
    void rebuildReadsTheWholeWindowWhenItHoldsFewerRecordsThanTheScan(@TempDir Path dir) {
        try (SegmentLog log = SegmentLog.open(dir, LogConfig.builder().policy(FsyncPolicy.OS).build())) {
            for (int i = 1; i <= 5; i++) {
                log.append("orders.eu", Headers.of(HeaderNames.MSG_ID, "id-" + i).toNatsBlock(), new byte[1]);
            }
            Duplicates duplicates = new Duplicates(WINDOW);
            duplicates.rebuild(log, WINDOW);

            assertThat(duplicates.sequenceOf("id-1", System.currentTimeMillis())).isEqualTo(1);
            assertThat(duplicates.sequenceOf("id-5", System.currentTimeMillis())).isEqualTo(5);
        }
    }
}
