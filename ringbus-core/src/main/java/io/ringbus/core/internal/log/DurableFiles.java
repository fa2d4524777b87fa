package io.ringbus.core.internal.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store's durability discipline for names, written once: every file or directory the store
 * creates, renames or deletes goes through here, so that a power loss keeps what was acknowledged
 * and never brings back what was deleted. A file's data is durable after its own {@code fsync}; its
 * <em>name</em> (a creation, a rename, an unlink) only after an {@code fsync} of its directory.
 *
 * <ul>
 *   <li>{@link #openOrCreate}: a file created is followed by an {@code fsync} of its directory
 *       before the caller writes anything that will be acknowledged (a segment created at
 *       roll-over has a durable name before its first record is);</li>
 *   <li>{@link #createDirectories}: each directory created is followed by an {@code fsync} of its
 *       parent;</li>
 *   <li>{@link #replace}: metadata is written to {@code <name>.tmp}, forced, renamed over
 *       {@code <name>}, and the directory forced: a cut leaves the old content or the new;</li>
 *   <li>{@link #delete}: unlinks, then an {@code fsync} of the directory, so deleted data (retention)
 *       never reappears.</li>
 *   <li>{@link #forceData}: {@code fdatasync} of a write inside a file's existing size and
 *       allocation (a document's record in its preallocated region), no name involved.</li>
 * </ul>
 *
 * <p>With {@code sync} false (the {@code OS} policy: ringbus forces nothing) the same operations
 * run and are counted, but nothing is forced. Directory {@code fsync} needs a platform that lets a
 * directory be opened (Linux, macOS, the BSDs); on Windows Java cannot open one, so it is skipped
 * there (NTFS journals its names) and {@link #directorySyncSupported()} says so.
 *
 * <p>Thread-safe; the counters are cumulative for the store's life. An {@link Observer} (tests)
 * is told each operation after it succeeded, in order, on the calling thread.
 */
public final class DurableFiles {
    private static final Logger LOG = LoggerFactory.getLogger(DurableFiles.class);
    private static final boolean DIRECTORY_SYNC =
            !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

    /** An operation, as told to an {@link Observer}. */
    public enum Operation {
        /** A file or directory was created (its name not yet durable). */
        CREATE,
        /** A file's data was forced ({@code fsync}). */
        SYNC_FILE,
        /** A file was renamed over another (its new name not yet durable). */
        RENAME,
        /** A file was unlinked (not yet durably). */
        DELETE,
        /** A directory was forced: every name change in it before now is durable. */
        SYNC_DIRECTORY,
        /** A file left damaged by a crash was repaired (rewritten, truncated, or replaced by a fallback). */
        REPAIR
    }

    /** Told each operation after it succeeded (tests). */
    @FunctionalInterface
    public interface Observer {
        /**
         * One operation done.
         *
         * @param operation what was done
         * @param path      the file or directory it was done to
         */
        void done(Operation operation, Path path);
    }

    /**
     * A snapshot of the counters.
     *
     * @param creates        files and directories created
     * @param renames        files renamed over another (metadata replaced)
     * @param deletes        files deleted
     * @param directorySyncs directory {@code fsync}s
     * @param repairs        files found damaged after a crash and repaired (torn segment tails,
     *                       empty or short metadata), each logged at WARN
     */
    public record Stats(long creates, long renames, long deletes, long directorySyncs, long repairs) {
    }

    private final boolean sync;
    private final Observer observer;
    private final AtomicLong creates = new AtomicLong();
    private final AtomicLong renames = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();
    private final AtomicLong directorySyncs = new AtomicLong();
    private final AtomicLong repairs = new AtomicLong();

    /**
     * Files that force what they do when {@code sync}.
     *
     * @param sync false for the {@code OS} policy: operations counted, nothing forced
     */
    public DurableFiles(boolean sync) {
        this(sync, (operation, path) -> { });
    }

    /**
     * As {@link #DurableFiles(boolean)}, telling {@code observer} every operation.
     *
     * @param sync     false for the {@code OS} policy
     * @param observer told each operation after it succeeded; must not throw
     */
    public DurableFiles(boolean sync, Observer observer) {
        this.sync = sync;
        this.observer = observer;
    }

    /** @return whether operations are forced (false under the {@code OS} policy) */
    public boolean syncs() {
        return sync;
    }

    /** @return whether this platform can {@code fsync} a directory (not Windows) */
    public static boolean directorySyncSupported() {
        return DIRECTORY_SYNC;
    }

    /**
     * Opens {@code file} for reading and writing, creating it if missing; a file created gets a
     * durable name (its directory forced) before this returns when {@code durableName}.
     *
     * @param file        the file
     * @param durableName whether a new name must survive a power loss (false for a cache the
     *                    store rebuilds, such as an index created next to a durable segment)
     * @return the open channel
     * @throws IOException naming the file or its directory
     */
    public FileChannel openOrCreate(Path file, boolean durableName) throws IOException {
        boolean existed = Files.exists(file);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        if (!existed) {
            creates.incrementAndGet();
            observer.done(Operation.CREATE, file);
            if (durableName) {
                try {
                    syncDirectory(file.toAbsolutePath().getParent());
                } catch (IOException e) {
                    channel.close();
                    undo(file, e); // the next try creates it again and forces the directory then
                    throw e;
                }
            }
        }
        return channel;
    }

    /** Deletes what was just created when its name could not be made durable. */
    private static void undo(Path created, IOException cause) {
        try {
            Files.deleteIfExists(created);
        } catch (IOException again) {
            cause.addSuppressed(again);
        }
    }

    /**
     * Creates {@code dir} and its missing parents, forcing each new directory's parent.
     *
     * @param dir the directory
     * @throws IOException naming the directory that could not be created or forced
     */
    public void createDirectories(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        Deque<Path> missing = new ArrayDeque<>();
        for (Path p = absolute; p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.push(p);
        }
        while (!missing.isEmpty()) {
            Path created = missing.pop();
            Files.createDirectories(created); // tolerates a racing creator
            creates.incrementAndGet();
            observer.done(Operation.CREATE, created);
            try {
                syncDirectory(created.getParent());
            } catch (IOException e) {
                undo(created, e); // the next try creates it again and forces the parent then
                throw e;
            }
        }
    }

    /**
     * Replaces {@code file}'s content atomically and durably: writes {@code <file>.tmp}, forces it,
     * renames it over {@code file}, forces the directory. A power loss leaves the old content or
     * the new one, never a mix or an empty file.
     *
     * @param file    the file
     * @param content its new content
     * @throws IOException naming the file
     */
    public void replace(Path file, ByteBuffer content) throws IOException {
        Path tmp = temporary(file);
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (content.hasRemaining()) {
                channel.write(content);
            }
            if (sync) {
                channel.force(true);
                observer.done(Operation.SYNC_FILE, tmp);
            }
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        renames.incrementAndGet();
        observer.done(Operation.RENAME, file);
        syncDirectory(file.toAbsolutePath().getParent());
    }

    /**
     * Forces {@code channel}'s data ({@code fdatasync}: no metadata such as the modification time),
     * for a write inside a file's existing size and allocation, whose name is already durable: one
     * device flush, no journal commit. Nothing when not syncing.
     *
     * @param channel the open file
     * @param file    its path, for the observer and the error
     * @throws IOException naming the file
     */
    public void forceData(FileChannel channel, Path file) throws IOException {
        if (!sync) {
            return;
        }
        try {
            channel.force(false);
        } catch (IOException e) {
            throw new IOException("fdatasync of " + file + " failed: " + e, e);
        }
        observer.done(Operation.SYNC_FILE, file);
    }

    /**
     * @param file a file {@link #replace} writes
     * @return the temporary file it writes first ({@code <file>.tmp})
     */
    public static Path temporary(Path file) {
        return file.resolveSibling(file.getFileName() + ".tmp");
    }

    /**
     * Deletes files of one directory (those that exist), then forces that directory once, so the
     * deletion survives a power loss.
     *
     * @param files the files, all in one directory
     * @throws IOException naming the first file that could not be deleted (the others are still
     *                     tried) or the directory
     */
    public void delete(Path... files) throws IOException {
        if (unlink(files)) {
            syncDirectory(files[0].toAbsolutePath().getParent());
        }
    }

    /**
     * Deletes files of one directory (those that exist) without forcing it: the caller forces the
     * directory before it reports the deletion done (a log's flusher, off the appending thread).
     *
     * @param files the files, all in one directory
     * @return whether any existed
     * @throws IOException naming the first file that could not be deleted (the others are still tried)
     */
    public boolean unlink(Path... files) throws IOException {
        IOException failed = null;
        boolean any = false;
        for (Path file : files) {
            try {
                if (Files.deleteIfExists(file)) {
                    any = true;
                    deletes.incrementAndGet();
                    observer.done(Operation.DELETE, file);
                }
            } catch (IOException e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
        return any;
    }

    /**
     * Forces {@code dir}: every creation, rename and deletion in it so far survives a power loss.
     * Nothing when not syncing or on a platform without directory {@code fsync}.
     *
     * @param dir the directory
     * @throws IOException naming the directory
     */
    public void syncDirectory(Path dir) throws IOException {
        if (!sync || !DIRECTORY_SYNC) {
            return;
        }
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            throw new IOException("fsync of directory " + dir + " failed: " + e, e);
        }
        directorySyncs.incrementAndGet();
        observer.done(Operation.SYNC_DIRECTORY, dir);
    }

    /**
     * Counts and logs (WARN) a file a crash left damaged that the caller repaired.
     *
     * @param file the file
     * @param what what was found and done, for the log
     */
    public void repaired(Path file, String what) {
        repairs.incrementAndGet();
        LOG.warn("{}: {}", file, what);
        observer.done(Operation.REPAIR, file);
    }

    /** @return a snapshot of the counters */
    public Stats stats() {
        return new Stats(creates.get(), renames.get(), deletes.get(), directorySyncs.get(), repairs.get());
    }

    /**
     * Forces every directory of a store's stream once it is open: its parent ({@code streams}, which
     * holds its name), itself, {@code log} and {@code consumers}. A directory is forced after a name
     * is created in it, but a process killed between the two leaves a name that exists and is not
     * durable; the next process finds it, creates nothing, so forces nothing, and would acknowledge
     * records (or consumer states) whose directory a power cut then drops (found by
     * MetadataPowerCutTest). Four directory {@code fsync}s per stream opened, none per append.
     *
     * @param streamDir the stream's directory
     * @throws IOException when one cannot be forced
     */
    public void forceStreamNames(Path streamDir) throws IOException {
        syncDirectory(streamDir.getParent());
        syncDirectory(streamDir);
        syncDirectory(streamDir.resolve("log"));
        syncDirectory(streamDir.resolve("consumers"));
    }
}
