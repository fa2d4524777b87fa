package io.ringbus.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A directory that loses what a disk loses when the power goes: a FUSE file system
 * ({@code powerloss_fs.py}, Python 3 with Debian's {@code python3-fusepy}) mounted at a mount
 * point, passing through to a backing directory, that models what is durable. Writes, truncates,
 * creates, renames, unlinks, links and mkdirs are volatile until made durable: an fsync or
 * fdatasync of a file makes its data and size durable; a new, moved or removed name is durable as
 * the {@link Mode} says. {@link #cut()} drops everything volatile; docs/testing.md describes the
 * model.
 *
 * <p>Contract: like a real power cut, a cut comes when no process has files open on the mount (the
 * test kills the server first). Files still open then are not an error: every later operation on
 * them fails with EIO, and the mount keeps working for files opened after the cut.
 *
 * <p>Threading: one test thread drives it; the file system itself serves any number of processes.
 * {@link #close()} also runs at JVM exit, so no mount is left behind.
 */
public final class PowerLossFileSystem implements AutoCloseable {
    /** How long mounting or unmounting may take on a loaded machine before it is an error. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String SCRIPT = "powerloss_fs.py";

    /** When a new, moved or removed name becomes durable. */
    public enum Mode {
        /** Strict POSIX: only when its parent directory is fsynced. */
        POSIX,
        /**
         * With the file (ext4 and XFS in practice): a file's fsync also makes its current name and
         * every directory above it durable; a directory's fsync its entries, as in {@link #POSIX}.
         */
        FILE,
        /** One journal (ext4's): any fsync, of a file or a directory, makes every name durable. */
        ANY,
        /** At once (like LazyFS): only data needs an fsync. */
        IMMEDIATE
    }

    /**
     * What the file system counted since it was mounted.
     *
     * @param fileFsyncs           fsync and fdatasync calls on files
     * @param dirFsyncs            fsync calls on directories
     * @param creates              files (and symbolic links) created
     * @param mkdirs               directories created
     * @param renames              renames
     * @param unlinks              names of non-directories removed
     * @param rmdirs               directories removed
     * @param links                hard links made
     * @param truncates            truncations (also open with O_TRUNC)
     * @param writes               write calls
     * @param bytesWritten         bytes written
     * @param bytesMadeDurable     bytes that fsyncs made durable: each fsync counts the bytes that
     *                             changed since the file's last fsync, never the file's size
     * @param bytesCopied          bytes the model copied: durable bytes saved before a write or a
     *                             truncate changed them, and copied back at a cut (appends copy none)
     * @param cuts                 cuts
     * @param lastCutBytesDropped  unsynced bytes the last cut dropped
     * @param lastCutBytesTornKept unsynced bytes the last (torn) cut kept
     * @param lastCutFilesDropped  files that existed before the last cut and not after it
     */
    public record Counters(long fileFsyncs, long dirFsyncs, long creates, long mkdirs, long renames, long unlinks,
                           long rmdirs, long links, long truncates, long writes, long bytesWritten,
                           long bytesMadeDurable, long bytesCopied, long cuts, long lastCutBytesDropped,
                           long lastCutBytesTornKept, long lastCutFilesDropped) {
        static Counters of(Map<String, Long> v) {
            return new Counters(v.get("file_fsyncs"), v.get("dir_fsyncs"), v.get("creates"), v.get("mkdirs"),
                    v.get("renames"), v.get("unlinks"), v.get("rmdirs"), v.get("links"), v.get("truncates"),
                    v.get("writes"), v.get("bytes_written"), v.get("bytes_made_durable"), v.get("bytes_copied"),
                    v.get("cuts"), v.get("last_cut_bytes_dropped"), v.get("last_cut_bytes_torn_kept"),
                    v.get("last_cut_files_dropped"));
        }
    }

    private final Path mountPoint;
    private final Path backing;
    private final Path state;
    private final Path stderr;
    private final Process process;
    private final PowerLossControl control;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread exitHook = new Thread(this::unmount, "powerloss-fs-unmount");

    private PowerLossFileSystem(Path mountPoint, Path backing, Path state, Path stderr, Process process) {
        this.mountPoint = mountPoint;
        this.backing = backing;
        this.state = state;
        this.stderr = stderr;
        this.process = process;
        this.control = new PowerLossControl(state.resolve("control.sock"));
    }

    /** @return whether {@link #mount} can work here: see {@link #unavailableReason()} */
    public static boolean available() {
        return PowerLossHost.unavailableReason() == null;
    }

    /**
     * @return why {@link #mount} cannot work here (not root, no /dev/fuse, no fusermount3, no python3
     *         with fusepy: {@code apt-get install fuse3 python3-fusepy}), or null when it can
     */
    public static String unavailableReason() {
        return PowerLossHost.unavailableReason();
    }

    /**
     * Mounts the file system: everything already in {@code backing} is durable.
     *
     * @param mountPoint an empty directory (created when missing) where processes see the files
     * @param backing    the directory that holds them (created when missing); its parent also holds
     *                   the file system's state, on the same file system
     * @param mode       when names become durable
     * @return the mounted file system, once it serves
     * @throws IllegalStateException    when not {@link #available()}, or mountPoint is a mount point
     * @throws IllegalArgumentException when mountPoint is not an empty directory
     * @throws IOException              when it does not mount, with the file system's stderr
     */
    public static PowerLossFileSystem mount(Path mountPoint, Path backing, Mode mode) throws IOException {
        String reason = unavailableReason();
        if (reason != null) {
            throw new IllegalStateException("power-loss file system unavailable: " + reason);
        }
        Files.createDirectories(mountPoint);
        Files.createDirectories(backing);
        Path mp = mountPoint.toRealPath();
        Path back = backing.toRealPath();
        if (PowerLossHost.isMounted(mp)) {
            throw new IllegalStateException("already a mount point: mountPoint=" + mp);
        }
        try (Stream<Path> entries = Files.list(mp)) {
            if (entries.findAny().isPresent()) {
                throw new IllegalArgumentException("mountPoint must be an empty directory: mountPoint=" + mp);
            }
        }
        Path state = Files.createTempDirectory(back.getParent(), "." + back.getFileName() + ".powerloss-");
        Path stderr = state.resolve("stderr");
        Process process = new ProcessBuilder(PowerLossHost.python(), "-",
                "--mode", mode.name().toLowerCase(Locale.ROOT), "--state", state.toString(), back.toString(),
                mp.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(stderr.toFile()).start();
        PowerLossFileSystem fs = new PowerLossFileSystem(mp, back, state, stderr, process);
        Runtime.getRuntime().addShutdownHook(fs.exitHook);
        try {
            try (OutputStream stdin = process.getOutputStream()) {
                stdin.write(script());
            }
            fs.awaitServing();
        } catch (IOException | RuntimeException e) {
            fs.close();
            throw e;
        }
        return fs;
    }

    private void awaitServing() throws IOException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("power-loss file system exited (" + process.exitValue() + ") before mounting "
                        + mountPoint + diagnostics());
            }
            if (PowerLossHost.isMounted(mountPoint) && Files.exists(state.resolve("control.sock"))) {
                control.send("ping");
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("power-loss file system did not mount " + mountPoint + " within " + TIMEOUT
                        + diagnostics());
            }
            sleep(10);
        }
    }

    /** @return where processes see the files */
    public Path mountPoint() {
        return mountPoint;
    }

    /** @return the directory that holds them (after a cut: what survived) */
    public Path backing() {
        return backing;
    }

    /**
     * Cuts the power: the backing directory becomes what the model holds as durable, every unsynced
     * byte and every name not made durable is gone. Call it when no process has files open on the
     * mount (see the class comment).
     *
     * @throws IOException when the file system fails or is gone
     */
    public void cut() throws IOException {
        control.send("cut");
    }

    /**
     * Cuts the power with torn writes: each file also keeps a prefix, 0 to all, of its unsynced 4 KiB
     * pages (in offset order), drawn from {@code tornSeed}: the same operations and seed keep the same.
     *
     * @param tornSeed the seed of the prefixes' lengths
     * @throws IOException when the file system fails or is gone
     */
    public void cut(long tornSeed) throws IOException {
        control.send("cut " + tornSeed);
    }

    /**
     * @return its counters now
     * @throws IOException when the file system fails or is gone
     */
    public Counters counters() throws IOException {
        return Counters.of(control.send("counters"));
    }

    /** @return the end of the file system's stderr, for a failure message */
    public String diagnostics() {
        try {
            String err = Files.readString(stderr);
            return err.isEmpty() ? "" : "; powerloss_fs stderr:\n" + err.substring(Math.max(0, err.length() - 4000));
        } catch (IOException e) {
            return "; " + e;
        }
    }

    /**
     * Unmounts ({@code fusermount3 -u}); when that fails, kills the file system and unmounts lazily.
     * The backing directory keeps the live (not only the durable) files, as after a clean shutdown.
     * Idempotent; never throws.
     */
    @Override
    public void close() {
        unmount();
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs (or ran) unmount, which is idempotent
        }
    }

    private void unmount() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            if (PowerLossHost.isMounted(mountPoint) && PowerLossHost.run(List.of("fusermount3", "-u",
                    mountPoint.toString())) != 0) {
                process.destroyForcibly();
            }
            if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            if (PowerLossHost.isMounted(mountPoint)) {
                PowerLossHost.run(List.of("fusermount3", "-u", "-z", mountPoint.toString()));
            }
            if (PowerLossHost.isMounted(mountPoint)) {
                PowerLossHost.run(List.of("umount", "-l", mountPoint.toString()));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        deleteQuietly(state);
    }

    /** @return the program's text, given to python3 on stdin (no copy on disk to clean up) */
    private static byte[] script() throws IOException {
        try (InputStream in = PowerLossFileSystem.class.getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IOException("resource " + SCRIPT + " missing next to " + PowerLossFileSystem.class);
            }
            return in.readAllBytes();
        }
    }

    private static void deleteQuietly(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // best effort: a temporary directory outside the backing one
        }
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for the power-loss file system", e);
        }
    }
}
