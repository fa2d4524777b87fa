package io.ringbus.testkit;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ringbus.testkit.PowerLossFileSystem.Mode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each rule of the power-loss model, proved through a real mount with Java's own file API. */
class PowerLossFileSystemTest {
    @TempDir
    Path temp;
    private final List<PowerLossFileSystem> mounted = new ArrayList<>();

    @BeforeAll
    static void needsFuse() {
        assumeTrue(PowerLossFileSystem.available(),
                "power-loss file system unavailable: " + PowerLossFileSystem.unavailableReason());
    }

    @AfterEach
    void unmount() {
        mounted.forEach(PowerLossFileSystem::close);
    }

    private PowerLossFileSystem mount(Mode mode) throws IOException {
        return mount(mode, "");
    }

    private PowerLossFileSystem mount(Mode mode, String name) throws IOException {
        PowerLossFileSystem fs = PowerLossFileSystem.mount(temp.resolve("mnt" + name), temp.resolve("disk" + name),
                mode);
        mounted.add(fs);
        return fs;
    }

    /** Writes {@code text} at the end of {@code file} (created when missing), fsynced when asked. */
    private static void append(Path file, String text, boolean fsync) throws IOException {
        append(file, text.getBytes(StandardCharsets.UTF_8), fsync);
    }

    private static void append(Path file, byte[] bytes, boolean fsync) throws IOException {
        try (FileChannel ch = FileChannel.open(file, CREATE, WRITE)) {
            ch.position(ch.size());
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            if (fsync) {
                ch.force(true);
            }
        }
    }

    /** A directory fsync as Java does it. */
    private static void fsyncDir(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, READ)) {
            ch.force(true);
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    @Test
    void unsyncedWriteIsLostAtCut() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path log = fs.mountPoint().resolve("log");
        append(log, "acked;", true);
        fsyncDir(fs.mountPoint());
        append(log, "not synced;", false);
        assertThat(read(log)).isEqualTo("acked;not synced;");

        fs.cut();

        assertThat(read(log)).isEqualTo("acked;");
        assertThat(fs.counters().lastCutBytesDropped()).isEqualTo("not synced;".length());
    }

    @Test
    void fsyncedWriteIsKept() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path log = fs.mountPoint().resolve("log");
        append(log, "one;", true);
        fsyncDir(fs.mountPoint());
        append(log, "two;", true);

        fs.cut();

        assertThat(read(log)).isEqualTo("one;two;");
        assertThat(read(fs.backing().resolve("log"))).isEqualTo("one;two;");
        assertThat(fs.counters().lastCutBytesDropped()).isZero();
    }

    @Test
    void fsyncedFileWithoutDirFsyncIsGoneInPosixMode() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path segment = fs.mountPoint().resolve("segment-2");
        append(segment, "acked record", true);

        fs.cut();

        assertThat(segment).doesNotExist();
        assertThat(fs.counters().lastCutFilesDropped()).isEqualTo(1);
    }

    @Test
    void fsyncedFileWithoutDirFsyncIsKeptInFileMode() throws IOException {
        PowerLossFileSystem fs = mount(Mode.FILE);
        Path dir = fs.mountPoint().resolve("streams/orders");
        Files.createDirectories(dir);
        append(dir.resolve("segment-2"), "acked record", true);
        append(fs.mountPoint().resolve("never-synced"), "x", false);

        fs.cut();

        assertThat(read(dir.resolve("segment-2"))).isEqualTo("acked record");
        assertThat(fs.mountPoint().resolve("never-synced")).doesNotExist();
    }

    @Test
    void dirFsyncMakesNewNameDurable() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path segment = fs.mountPoint().resolve("segment-2");
        append(segment, "acked record", true);
        fsyncDir(fs.mountPoint());

        fs.cut();

        assertThat(read(segment)).isEqualTo("acked record");
    }

    @Test
    void javaDirectoryForceIsADirectoryFsync() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        long before = fs.counters().dirFsyncs();

        fsyncDir(fs.mountPoint());

        assertThat(fs.counters().dirFsyncs()).isEqualTo(before + 1);
        assertThat(fs.counters().fileFsyncs()).isZero();
    }

    @Test
    void renameWithoutDirFsyncLeavesOldNameInPosixMode() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path tmp = fs.mountPoint().resolve("subjects.tmp");
        Path meta = fs.mountPoint().resolve("subjects");
        append(meta, "old", true);
        append(tmp, "new", true);
        fsyncDir(fs.mountPoint());
        Files.move(tmp, meta, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        assertThat(read(meta)).isEqualTo("new");

        fs.cut();

        assertThat(read(meta)).isEqualTo("old");
        assertThat(read(tmp)).isEqualTo("new");

        Files.move(tmp, meta, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        fsyncDir(fs.mountPoint());
        fs.cut();
        assertThat(read(meta)).isEqualTo("new");
        assertThat(tmp).doesNotExist();
    }

    @Test
    void unlinkWithoutDirFsyncBringsFileBack() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path old = fs.mountPoint().resolve("segment-1");
        append(old, "expired records", true);
        fsyncDir(fs.mountPoint());
        Files.delete(old);

        fs.cut();

        assertThat(read(old)).isEqualTo("expired records");

        Files.delete(old);
        fsyncDir(fs.mountPoint());
        fs.cut();
        assertThat(old).doesNotExist();
    }

    @Test
    void truncateAndOverwriteAreVolatile() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path index = fs.mountPoint().resolve("index");
        byte[] durable = new byte[3 * 4096 + 17];
        Arrays.fill(durable, (byte) 'd');
        append(index, durable, true);
        fsyncDir(fs.mountPoint());
        try (FileChannel ch = FileChannel.open(index, WRITE)) {
            ch.write(ByteBuffer.wrap("overwritten".getBytes(StandardCharsets.UTF_8)), 4000);
            ch.truncate(100);
        }
        assertThat(Files.size(index)).isEqualTo(100);

        fs.cut();

        assertThat(Files.readAllBytes(index)).isEqualTo(durable);
    }

    @Test
    void mkdirIsVolatileUntilParentFsync() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path stream = fs.mountPoint().resolve("orders");
        Files.createDirectory(stream);
        append(stream.resolve("log"), "acked", true);
        fsyncDir(stream);

        fs.cut();

        assertThat(stream).doesNotExist();

        Files.createDirectory(stream);
        append(stream.resolve("log"), "acked", true);
        fsyncDir(stream);
        fsyncDir(fs.mountPoint());
        fs.cut();
        assertThat(read(stream.resolve("log"))).isEqualTo("acked");
    }

    @Test
    void immediateModeKeepsNamesAnyModeKeepsThemOnAnyFsync() throws IOException {
        PowerLossFileSystem immediate = mount(Mode.IMMEDIATE, "-immediate");
        append(immediate.mountPoint().resolve("new"), "unsynced", false);
        immediate.cut();
        assertThat(immediate.mountPoint().resolve("new")).exists().isEmptyFile();

        PowerLossFileSystem any = mount(Mode.ANY, "-any");
        append(any.mountPoint().resolve("a"), "synced", false);
        Files.createDirectory(any.mountPoint().resolve("d"));
        append(any.mountPoint().resolve("b"), "other", true);
        any.cut();
        assertThat(any.mountPoint().resolve("a")).exists().isEmptyFile();
        assertThat(any.mountPoint().resolve("d")).isDirectory();
        assertThat(read(any.mountPoint().resolve("b"))).isEqualTo("other");
    }

    @Test
    void tornCutKeepsPageAlignedPrefixOfUnsyncedDataDeterminedBySeed() throws IOException {
        int pages = 64;
        List<Integer> sizes = new ArrayList<>();
        for (long seed = 1; seed <= 6; seed++) {
            for (int twice = 0; twice < 2; twice++) {
                PowerLossFileSystem fs = mount(Mode.POSIX, "-" + seed + "-" + twice);
                Path log = fs.mountPoint().resolve("log");
                byte[] synced = "synced;".getBytes(StandardCharsets.UTF_8);
                append(log, synced, true);
                fsyncDir(fs.mountPoint());
                byte[] unsynced = new byte[pages * 4096];
                for (int i = 0; i < unsynced.length; i++) {
                    unsynced[i] = (byte) (i / 4096 + 1);
                }
                append(log, unsynced, false);
                byte[] all = Files.readAllBytes(log);

                fs.cut(seed);

                byte[] kept = Files.readAllBytes(log);
                assertThat(kept.length == synced.length || kept.length % 4096 == 0 || kept.length == all.length)
                        .as("size %d ends at a page boundary, or at the durable or the full size", kept.length)
                        .isTrue();
                assertThat(kept).isEqualTo(Arrays.copyOf(all, kept.length));
                assertThat(fs.counters().lastCutBytesTornKept() + fs.counters().lastCutBytesDropped())
                        .isEqualTo(unsynced.length);
                if (twice == 1) {
                    assertThat(kept.length).as("seed %d keeps the same prefix each time", seed)
                            .isEqualTo(sizes.getLast());
                }
                sizes.add(kept.length);
                fs.close();
            }
        }
        assertThat(sizes.stream().distinct().count()).as("sizes %s", sizes).isGreaterThan(2);
    }

    @Test
    void fsyncCostsTheDirtyBytesNotTheFileSize() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path segment = fs.mountPoint().resolve("segment");
        append(segment, new byte[8 << 20], true);
        assertThat(fs.counters().bytesMadeDurable()).isEqualTo(8 << 20);
        assertThat(fs.counters().bytesCopied()).isZero();

        append(segment, new byte[1000], true);
        PowerLossFileSystem.Counters afterAppend = fs.counters();
        assertThat(afterAppend.bytesMadeDurable()).isEqualTo((8 << 20) + 1000);
        assertThat(afterAppend.bytesCopied()).as("an append copies nothing").isZero();

        try (FileChannel ch = FileChannel.open(segment, WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[100]), 4096);
            ch.force(false);
        }
        PowerLossFileSystem.Counters afterOverwrite = fs.counters();
        assertThat(afterOverwrite.bytesMadeDurable() - afterAppend.bytesMadeDurable()).isEqualTo(100);
        assertThat(afterOverwrite.bytesCopied()).as("the overwritten durable bytes, saved once").isEqualTo(100);
    }

    @Test
    void filesOpenAtCutFailAndMountKeepsWorking() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        Path log = fs.mountPoint().resolve("log");
        append(log, "durable", true);
        fsyncDir(fs.mountPoint());
        try (FileChannel open = FileChannel.open(log, WRITE)) {
            fs.cut();
            assertThatThrownBy(() -> open.write(ByteBuffer.wrap(new byte[10]), 0)).isInstanceOf(IOException.class);
        }
        append(log, "+more", true);
        assertThat(read(log)).isEqualTo("durable+more");
    }

    @Test
    void closeUnmounts() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        append(fs.mountPoint().resolve("live"), "kept by a clean unmount", false);

        fs.close();

        assertThat(PowerLossHost.isMounted(fs.mountPoint())).isFalse();
        assertThat(read(fs.backing().resolve("live"))).isEqualTo("kept by a clean unmount");
    }

    @Test
    void noMountOutlivesItsJvmStoppedOrKilled() throws Exception {
        for (boolean kill : new boolean[] {false, true}) {
            Path mnt = temp.resolve(kill ? "mnt-killed" : "mnt-stopped");
            try (ChildProcess child = ChildProcess.start("powerloss-mount", List.of(), PowerLossMountChild.class,
                    mnt.toString(), temp.resolve(kill ? "disk-killed" : "disk-stopped").toString())) {
                child.awaitLine("mounted"::equals, 60);
                Path real = mnt.toRealPath();
                assertThat(PowerLossHost.isMounted(real)).isTrue();
                if (kill) {
                    child.kill();
                } else {
                    child.stop();
                }
                Await.until("no mount at " + real + " after the JVM was " + (kill ? "killed" : "stopped"),
                        () -> !PowerLossHost.isMounted(real));
            }
        }
    }

    @Test
    void appendAndFsyncThroughput() throws IOException {
        PowerLossFileSystem fs = mount(Mode.POSIX);
        byte[] record = new byte[4096];
        int records = 2000;
        long start = System.nanoTime();
        try (FileChannel ch = FileChannel.open(fs.mountPoint().resolve("log"), CREATE, WRITE)) {
            for (int i = 0; i < records; i++) {
                ch.write(ByteBuffer.wrap(record));
                ch.force(false);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("power-loss fs: %d appends of 4 KiB + fsync in %.2f s: %.0f fsyncs/s, %.1f MiB/s%n",
                records, seconds, records / seconds, records * 4096 / seconds / (1 << 20));
        assertThat(fs.counters().fileFsyncs()).isEqualTo(records);
    }
}
