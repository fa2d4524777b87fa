package io.ringbus.core.internal.log;

import io.ringbus.core.FsyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.ringbus.core.internal.log.LogFixtures.readAll;
import static io.ringbus.core.internal.log.LogFixtures.sequences;
import static io.ringbus.core.internal.log.SegmentLogTest.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A full disk, for real: the next segment's file name is a link to Linux's {@code /dev/full}, whose
 * every write fails with ENOSPC, so the append that rolls into it meets the kernel's own error.
 */
class SegmentLogDiskFullTest {
    private static final Path DEV_FULL = Path.of("/dev/full");
    /** 38 bytes of frame, 1 of subject, 61 of payload: 40 records fill a 4 KiB segment. */
    private static final byte[] PAYLOAD = new byte[61];

    @TempDir
    Path dir;

    @Test
    void aFullDiskFailsTheAppendNamingTheFileAndLosesNothingStored() throws IOException {
        assumeTrue(Files.isWritable(DEV_FULL), "needs /dev/full");
        LogConfig config = LogConfig.builder().segmentBytes(4096).policy(FsyncPolicy.OS).build();
        Path next = dir.resolve(Segment.name(41, ".log"));
        try (SegmentLog log = SegmentLog.open(dir, config)) {
            for (int i = 1; i <= 40; i++) {
                assertThat(log.append("s", null, PAYLOAD)).isEqualTo(i);
            }
            assertThat(log.stats().segments()).isEqualTo(1);
            Files.createSymbolicLink(next, DEV_FULL);

            assertThatThrownBy(() -> log.append("s", null, PAYLOAD))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining(next.getFileName().toString())
                    .hasMessageContaining("No space left on device");
            assertThatThrownBy(() -> log.append("s", null, PAYLOAD)).isInstanceOf(UncheckedIOException.class);
            assertThat(log.lastSequence()).isEqualTo(40);
            assertThat(sequences(readAll(log.reader(1)))).containsExactlyElementsOf(range(1, 40));
        }
        Files.delete(next); // space freed

        try (SegmentLog log = SegmentLog.open(dir, config)) {
            assertThat(log.lastSequence()).isEqualTo(40);
            assertThat(log.append("s", null, PAYLOAD)).isEqualTo(41);
            assertThat(sequences(readAll(log.reader(1)))).containsExactlyElementsOf(range(1, 41));
        }
    }
}
