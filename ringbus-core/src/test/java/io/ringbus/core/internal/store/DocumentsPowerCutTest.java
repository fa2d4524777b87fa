package io.ringbus.core.internal.store;

import io.ringbus.testkit.PowerLossFileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A document written over and over ({@link DocumentsCutChild}: appends into its region and rewrites
 * when full) by a process killed at a random instant and the power cut, torn or not;
 * {@value #ROUNDS} rounds, POSIX and FILE modes. After every cut the document reads as a whole
 * version, never a mix, and never older than the last write that returned: that one or the one in
 * flight.
 */
@Timeout(300)
class DocumentsPowerCutTest {
    private static final int ROUNDS = 4;
    private static final long SEED = 31_07L;

    @TempDir
    Path work;

    @ParameterizedTest
    @EnumSource(value = PowerLossFileSystem.Mode.class, names = {"POSIX", "FILE"})
    void aDocumentReadsAsTheLastWriteThatReturnedOrTheOneInFlight(PowerLossFileSystem.Mode mode) throws Exception {
        Assumptions.assumeTrue(PowerLossFileSystem.available(), PowerLossFileSystem::unavailableReason);
        Random random = new Random(SEED + mode.ordinal());
        try (PowerLossFileSystem fs = PowerLossFileSystem.mount(work.resolve("mnt"), work.resolve("disk"), mode)) {
            Path dir = fs.mountPoint().resolve("documents");
            long next = 1;
            List<String> report = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                PowerCut cut = PowerCut.draw(random, 50, 300);
                List<String> lines = cut.killAndCut(PowerCut.start("documents-cut", DocumentsCutChild.class, dir,
                        String.valueOf(next)), "ready", fs);
                long acknowledged = next - 1;
                for (String line : lines) {
                    if (line.startsWith("w ")) {
                        acknowledged = Long.parseLong(line.substring(2));
                    }
                }
                byte[] read = DocumentsCutChild.open(dir).read(DocumentsCutChild.NAME);
                assertThat(read).as("round %d (%s, %s): the document", round, mode, cut.describe("ready")).isNotNull();
                long version = DocumentsCutChild.version(read);
                assertThat(version).as("round %d (%s, %s): version read, last acknowledged %d", round, mode,
                        cut.describe("ready"), acknowledged).isBetween(acknowledged, acknowledged + 1);
                assertThat(read).as("round %d (%s): version %d whole", round, mode, version)
                        .isEqualTo(DocumentsCutChild.content(version));
                report.add("round " + round + ": " + cut.describe("ready") + ", " + (acknowledged - next + 1)
                        + " writes acknowledged, read version " + version);
                next = version + 1;
            }
            System.out.println("DocumentsPowerCutTest " + mode + ": " + String.join("; ", report) + "; "
                    + fs.counters());
        }
    }
}
