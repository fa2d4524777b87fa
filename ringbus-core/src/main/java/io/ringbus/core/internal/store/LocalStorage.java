package io.ringbus.core.internal.store;

import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Storage;
import io.ringbus.core.StorageException;
import io.ringbus.core.StoredStream;
import io.ringbus.core.StreamConfig;
import io.ringbus.core.internal.log.DurableFiles;
import io.ringbus.core.internal.log.LogConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The embedded store: one {@link LocalStream} (a segment log and its consumers) per stream under
 * {@code dir/streams/<name>}, and a thread that saves consumer positions every
 * {@link #STATE_SAVE_MILLIS} ms. A lock file keeps a second process out of the directory.
 *
 * <p>Thread-safe.
 */
public final class LocalStorage implements Storage {
    /** A stream's {@link #writeMetadata metadata} file, in its directory. */
    static final String METADATA = "metadata";
    /** Prefix of a deleted stream's directory until its files are gone (not a valid stream name). */
    static final String DELETED = ".deleted-";

    /** The store's byte limit unless given: what it holds at open plus 75% of the disk's free space (nats-server's). */
    public static final long DEFAULT_MAX_BYTES = -1;
    /** Memory streams' byte limit unless given: three quarters of the machine's memory (nats-server's). */
    public static final long DEFAULT_MAX_MEMORY = -1;

    /** How often acknowledged positions are saved: a crash redelivers at most this window of acks. */
    public static final long STATE_SAVE_MILLIS = 50;

    private static final Logger LOG = LoggerFactory.getLogger(LocalStorage.class);

    private final Path dir;
    private final FsyncPolicy policy;
    private final long intervalMillis;
    private final long maxPendingBytes;
    private final long segmentBytes;
    private final DurableFiles files;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Map<String, LocalStream> streams = new ConcurrentHashMap<>();
    /** One per area asked for (each extension's own; a handful): each keeps its documents' tails. */
    private final Map<String, LocalDocuments> documents = new ConcurrentHashMap<>();
    private final ReentrantLock openLock = new ReentrantLock();
    private final Thread saver;
    private final StoreUsage usage;
    /** What memory streams hold, against nats-server's max_memory_store default. */
    private final StoreUsage memoryUsage;
    private volatile boolean closed;

    /**
     * Opens (creating) the store's directory and locks it.
     *
     * @param dir             the directory
     * @param policy          when records are forced
     * @param interval        the force interval for INTERVAL
     * @param maxPendingBytes bytes of unacknowledged appends per stream
     * @throws IllegalArgumentException naming the value when the interval or limit is not positive
     * @throws StorageException         when the directory cannot be created or another process holds it
     */
    public LocalStorage(Path dir, FsyncPolicy policy, Duration interval, long maxPendingBytes) {
        this(dir, policy, interval, maxPendingBytes, LogConfig.DEFAULT_SEGMENT_BYTES);
    }

    /**
     * As {@link #LocalStorage(Path, FsyncPolicy, Duration, long)} with a segment size (tests roll
     * small segments).
     *
     * @param dir             the directory
     * @param policy          when records are forced
     * @param interval        the force interval for INTERVAL
     * @param maxPendingBytes bytes of unacknowledged appends per stream
     * @param segmentBytes    the size at which a stream's segment rolls
     */
    public LocalStorage(Path dir, FsyncPolicy policy, Duration interval, long maxPendingBytes, long segmentBytes) {
        this(dir, policy, interval, maxPendingBytes, segmentBytes, DEFAULT_MAX_BYTES, DEFAULT_MAX_MEMORY,
                (operation, path) -> { });
    }

    /**
     * As {@link #LocalStorage(Path, FsyncPolicy, Duration, long)} with a limit on the bytes it holds.
     *
     * @param dir             the directory
     * @param policy          when records are forced
     * @param interval        the force interval for INTERVAL
     * @param maxPendingBytes bytes of unacknowledged appends per stream
     * @param maxBytes        the most bytes its streams hold together (JetStream's {@code max_file_store}),
     *                        or {@link #DEFAULT_MAX_BYTES}: what it holds at open plus 75% of the disk's free space
     * @return the open store
     */
    public static LocalStorage limited(Path dir, FsyncPolicy policy, Duration interval, long maxPendingBytes,
                                       long maxBytes) {
        return limited(dir, policy, interval, maxPendingBytes, maxBytes, DEFAULT_MAX_MEMORY);
    }

    /**
     * As {@link #limited(Path, FsyncPolicy, Duration, long, long)} with a limit on memory streams.
     *
     * @param maxMemory the most bytes its memory streams hold together (JetStream's {@code max_memory_store}),
     *                  or {@link #DEFAULT_MAX_MEMORY}: three quarters of the machine's memory
     * @return the open store
     * @throws IllegalArgumentException naming the value when a limit is neither positive nor the default
     */
    public static LocalStorage limited(Path dir, FsyncPolicy policy, Duration interval, long maxPendingBytes,
                                       long maxBytes, long maxMemory) {
        return new LocalStorage(dir, policy, interval, maxPendingBytes, LogConfig.DEFAULT_SEGMENT_BYTES, maxBytes,
                maxMemory, (operation, path) -> { });
    }

    /** As the public constructors, telling {@code observer} every file operation (tests). */
    LocalStorage(Path dir, FsyncPolicy policy, Duration interval, long maxPendingBytes, long segmentBytes,
                 DurableFiles.Observer observer) {
        this(dir, policy, interval, maxPendingBytes, segmentBytes, DEFAULT_MAX_BYTES, DEFAULT_MAX_MEMORY, observer);
    }

    private LocalStorage(Path dir, FsyncPolicy policy, Duration interval, long maxPendingBytes, long segmentBytes,
                         long maxBytes, long maxMemory, DurableFiles.Observer observer) {
        this.dir = Objects.requireNonNull(dir, "dir").toAbsolutePath();
        this.policy = Objects.requireNonNull(policy, "policy");
        if (interval == null || interval.toMillis() < 1) {
            throw new IllegalArgumentException("interval must be at least 1 ms: interval=" + interval);
        }
        if (maxBytes < 1 && maxBytes != DEFAULT_MAX_BYTES || maxMemory < 1 && maxMemory != DEFAULT_MAX_MEMORY) {
            throw new IllegalArgumentException("the store's limits must be positive: maxBytes=" + maxBytes
                    + ", maxMemory=" + maxMemory);
        }
        if (maxPendingBytes < 1) {
            throw new IllegalArgumentException("maxPendingBytes must be positive: maxPendingBytes=" + maxPendingBytes);
        }
        this.intervalMillis = interval.toMillis();
        this.maxPendingBytes = maxPendingBytes;
        this.segmentBytes = segmentBytes;
        this.files = new DurableFiles(policy != FsyncPolicy.OS, observer);
        try {
            files.createDirectories(this.dir.resolve("streams"));
            // As LocalStream.open does for a stream: names a killed process created without
            // forcing their directory are made durable before anything under them is acknowledged.
            forceParent(this.dir, files);
            files.syncDirectory(this.dir);
            lockChannel = files.openOrCreate(this.dir.resolve("LOCK"), true);
        } catch (IOException e) {
            throw new StorageException("cannot open storage directory " + this.dir + ": " + e
                    + " (it must be a directory, or creatable, readable and writable by this user)", e);
        }
        FileLock acquired;
        try {
            acquired = lockChannel.tryLock();
        } catch (IOException | OverlappingFileLockException e) {
            acquired = null;
        }
        if (acquired == null) {
            closeQuietly(lockChannel);
            throw new StorageException("storage directory " + this.dir + " is in use by another broker (LOCK held)");
        }
        lock = acquired;
        removeDeleted();
        usage = new StoreUsage(maxBytes == DEFAULT_MAX_BYTES ? defaultMaxBytes(this.dir) : maxBytes,
                StreamConfig.Medium.FILE);
        memoryUsage = new StoreUsage(maxMemory == DEFAULT_MAX_MEMORY ? defaultMaxMemory() : maxMemory,
                StreamConfig.Medium.MEMORY);
        usage.sharesDiskWith(memoryUsage); // memory streams' files lie on the store's disk too
        saver = Thread.ofPlatform().name("ringbus-storage-saver").daemon(true).start(this::saveLoop);
    }

    /**
     * Forces the directory that holds the store's name. Not ours (it may be readable by root only,
     * where opening it for the {@code fsync} fails), so a failure is logged, not a refusal to open.
     */
    private static void forceParent(Path dir, DurableFiles files) {
        Path parent = dir.getParent();
        if (parent == null) {
            return;
        }
        try {
            files.syncDirectory(parent);
        } catch (IOException e) {
            LOG.warn("{}: could not force its parent directory (the store's own name may not survive a power"
                    + " loss if a crash interrupted its creation): {}", dir, e.toString());
        }
    }

    @Override
    public StoredStream stream(StreamConfig config) {
        Objects.requireNonNull(config, "config");
        openLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("storage closed: " + dir);
            }
            LocalStream existing = streams.get(config.name());
            if (existing != null) {
                existing.checkSubjects(config);
                return existing;
            }
            Path streamDir = dir.resolve("streams").resolve(config.name());
            if (config.medium() == StreamConfig.Medium.MEMORY) {
                forgetMessages(streamDir); // a memory stream opens empty after a restart, as JetStream's
            }
            LocalStream stream = LocalStream.open(streamDir, config, policyOf(config), intervalMillis,
                    maxPendingBytes, segmentBytes, files, usageOf(config));
            streams.put(config.name(), stream);
            usageOf(config).measure(streams.values()); // what it held counts from its open on
            return stream;
        } finally {
            openLock.unlock();
        }
    }

    @Override
    public StoredStream reconfigure(StreamConfig config) {
        Objects.requireNonNull(config, "config");
        openLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("storage closed: " + dir);
            }
            LocalStream existing = streams.remove(config.name());
            if (existing != null) {
                existing.close();
            }
            Path streamDir = streamDir(config.name());
            try {
                // The pattern may change: the subjects file is rewritten before the stream opens with it.
                files.createDirectories(streamDir);
                StreamSubjectsFile.rewrite(streamDir.resolve(StreamSubjectsFile.NAME), config, files);
            } catch (IOException e) {
                throw new StorageException("cannot reconfigure stream '" + config.name() + "' in " + streamDir + ": "
                        + e, e);
            }
            LocalStream stream = LocalStream.open(streamDir, config, policyOf(config), intervalMillis, maxPendingBytes,
                    segmentBytes, files, usageOf(config));
            streams.put(config.name(), stream);
            return stream;
        } finally {
            openLock.unlock();
        }
    }

    /**
     * Deletes a stream: closed, its directory renamed to {@value #DELETED}{@code <name>-<nanos>}
     * and the rename forced (the durable point: a crash after it never reopens the stream), then
     * its files deleted (a crash leaves a renamed directory, removed at the next open).
     */
    @Override
    public boolean delete(String name) {
        openLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("storage closed: " + dir);
            }
            LocalStream existing = streams.remove(name);
            if (existing != null) {
                existing.close();
            }
            Path streamDir = streamDir(name);
            if (!Files.isDirectory(streamDir)) {
                return existing != null;
            }
            Path gone = dir.resolve("streams").resolve(DELETED + name + "-" + System.nanoTime());
            try {
                Files.move(streamDir, gone, StandardCopyOption.ATOMIC_MOVE);
                files.syncDirectory(gone.getParent());
                deleteTree(gone);
                usage.measure(streams.values());
            } catch (IOException e) {
                throw new StorageException("cannot delete stream '" + name + "' (" + streamDir + "): " + e, e);
            }
            return true;
        } finally {
            openLock.unlock();
        }
    }

    @Override
    public void writeMetadata(String stream, byte[] content) {
        Objects.requireNonNull(content, "content");
        if (content.length > MAX_METADATA_BYTES) {
            throw new IllegalArgumentException("metadata of stream '" + stream + "' is " + content.length
                    + " bytes; at most " + MAX_METADATA_BYTES);
        }
        Path streamDir = streamDir(stream);
        try {
            files.createDirectories(streamDir);
            files.replace(streamDir.resolve(METADATA), ByteBuffer.wrap(content));
        } catch (IOException e) {
            throw new StorageException("cannot write the metadata of stream '" + stream + "' in " + streamDir + ": "
                    + e, e);
        }
    }

    @Override
    public byte[] metadata(String stream) {
        return LocalDocuments.readOrNull(streamDir(stream).resolve(METADATA));
    }

    @Override
    public List<String> streamsWithMetadata() {
        try (var names = Files.list(dir.resolve("streams"))) {
            return names.filter(d -> Files.isRegularFile(d.resolve(METADATA))).map(d -> d.getFileName().toString())
                    .filter(n -> !n.startsWith(DELETED)).sorted().toList();
        } catch (IOException e) {
            throw new StorageException("cannot list " + dir.resolve("streams") + ": " + e, e);
        }
    }

    /** @return the directory of the stream {@code name}, after checking the name (it is a file name) */
    private Path streamDir(String name) {
        StreamConfig.of("x").withName(name); // throws, naming it, unless letters, digits, '-' and '_'
        return dir.resolve("streams").resolve(name);
    }

    /** Removes what deletes a crash interrupted. */
    private void removeDeleted() {
        try (var names = Files.list(dir.resolve("streams"))) {
            for (Path leftover : names.filter(d -> d.getFileName().toString().startsWith(DELETED)).toList()) {
                deleteTree(leftover);
            }
        } catch (IOException e) {
            LOG.warn("{}: removing deleted streams failed: {}", dir, e.toString());
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /**
     * @return what the store did to its files' names since it was opened (creates, renames, deletes,
     *         directory {@code fsync}s) and the damaged files it repaired; see {@link DurableFiles}
     */
    public DurableFiles.Stats fileStats() {
        return files.stats();
    }

    @Override
    public long maxPendingBytes() {
        return maxPendingBytes;
    }

    @Override
    public Optional<Path> directory() {
        return Optional.of(dir);
    }

    @Override
    public String describe() {
        return "local " + dir + " (" + policy + (policy == FsyncPolicy.INTERVAL ? " " + intervalMillis + " ms" : "")
                + ")";
    }

    private void saveLoop() {
        while (!closed) {
            // Parked, not slept: an interrupt would close a state file's channel mid-write.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(STATE_SAVE_MILLIS));
            for (LocalStream stream : streams.values()) {
                stream.saveConsumers();
            }
            usage.measure(streams.values());
            memoryUsage.measure(streams.values());
        }
    }

    /** @return the store's policy, or OS for a memory stream (never forced) */
    private FsyncPolicy policyOf(StreamConfig config) {
        return config.medium() == StreamConfig.Medium.MEMORY ? FsyncPolicy.OS : policy;
    }

    private StoreUsage usageOf(StreamConfig config) {
        return config.medium() == StreamConfig.Medium.MEMORY ? memoryUsage : usage;
    }

    /** Deletes what a memory stream held before this process: its log, consumers and removals. */
    private static void forgetMessages(Path streamDir) {
        try {
            for (String part : new String[] {"log", "consumers"}) {
                if (Files.isDirectory(streamDir.resolve(part))) {
                    deleteTree(streamDir.resolve(part));
                }
            }
            Files.deleteIfExists(streamDir.resolve(Removals.NAME));
            Files.deleteIfExists(streamDir.resolve(KeyedIdsFile.NAME)); // a memory stream forgets its outbox ids too
        } catch (IOException e) {
            throw new StorageException("cannot empty memory stream " + streamDir + ": " + e, e);
        }
    }

    /** @return physical memory * 3/4 (nats-server's max_memory_store default), or no limit when unknown */
    private static long defaultMaxMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                && os.getTotalMemorySize() > 0) {
            return os.getTotalMemorySize() / 4 * 3;
        }
        return Long.MAX_VALUE;
    }

    /** @return what the store holds under {@code dir} plus 75% of the free space of its disk */
    private static long defaultMaxBytes(Path dir) {
        long held = 0;
        try (var walk = Files.walk(dir.resolve("streams"))) {
            held = walk.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.warn("store {}: its size could not be read ({}); its limit counts the disk's free space only", dir, e);
        }
        try {
            return held + Files.getFileStore(dir).getUsableSpace() / 4 * 3;
        } catch (IOException e) {
            LOG.warn("store {}: the disk's free space could not be read ({}); no byte limit", dir, e.toString());
            return Long.MAX_VALUE;
        }
    }

    @Override
    public long maxBytes() {
        return usage.max() == Long.MAX_VALUE ? -1 : usage.max();
    }

    @Override
    public long usedBytes() {
        return usage.used();
    }

    @Override
    public long maxMemoryBytes() {
        return memoryUsage.max() == Long.MAX_VALUE ? -1 : memoryUsage.max();
    }

    @Override
    public long usedMemoryBytes() {
        return memoryUsage.used();
    }

    @Override
    public void close() {
        openLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            openLock.unlock();
        }
        LockSupport.unpark(saver);
        try {
            saver.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (LocalStream stream : streams.values()) {
            stream.close();
        }
        try {
            lock.release();
        } catch (IOException e) {
            LOG.warn("{}: releasing LOCK failed: {}", dir, e.toString());
        }
        closeQuietly(lockChannel);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.warn("closing {} failed: {}", channel, e.toString());
        }
    }

    @Override
    public io.ringbus.core.Documents documents(String area) {
        StreamConfig.of("x").withName(area); // throws, naming it, unless letters, digits, '-' and '_'
        return documents.computeIfAbsent(area, a -> new LocalDocuments(dir.resolve("documents").resolve(a), files));
    }

    @Override
    public String toString() {
        return describe();
    }
}
