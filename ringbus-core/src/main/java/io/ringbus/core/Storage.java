package io.ringbus.core;

import io.ringbus.core.internal.store.LocalStorage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where durable subjects are stored: one interface, two stores. {@link #local(Path)} is the
 * embedded segment log (no other server to run); ringbus-federation's {@code JetStreamStorage}
 * stores in a NATS JetStream cluster. Both pass the same contract suite.
 *
 * <p>A broker opens one {@link StoredStream} per durable subject pattern and closes the storage
 * when it closes. Thread-safe.
 */
public interface Storage extends AutoCloseable {
    /** Default {@link #maxPendingBytes()}: 64 MiB per stream. */
    long DEFAULT_MAX_PENDING_BYTES = 64L << 20;
    /** The largest {@link #writeMetadata} document: 1 MiB. */
    int MAX_METADATA_BYTES = 1 << 20;

    /**
     * Opens a stream, creating it if it does not exist. An existing stream keeps its messages; its
     * limits are updated to {@code config}'s. The local store has made a new stream durable (its
     * directories and its pattern forced) when this returns.
     *
     * @param config the stream
     * @return the open stream; the same instance for the same name while the storage is open
     * @throws IllegalArgumentException when a stream of that name stores another pattern
     * @throws StorageException         when it cannot be opened
     */
    StoredStream stream(StreamConfig config);

    /** @return the most bytes of appends a stream holds not yet acknowledged before publishers wait */
    long maxPendingBytes();

    /** @return a line for logs and the monitor: the kind of store, where, and its policy */
    String describe();

    /**
     * Opens an open stream again with a changed configuration (its limits, its pattern): its
     * messages and consumers stay. Appends in flight on the old handle fail with
     * {@link StorageException}; the returned handle replaces it.
     *
     * @param config the stream's new configuration; its name is the stream's
     * @return the stream, open with {@code config}
     * @throws UnsupportedOperationException when this store cannot (the default)
     * @throws StorageException              when it cannot be opened again
     */
    default StoredStream reconfigure(StreamConfig config) {
        throw new UnsupportedOperationException(describe() + " cannot change a stream's configuration");
    }

    /**
     * Closes a stream and deletes it: its messages, consumers and {@link #writeMetadata metadata}.
     * Durable once it returns: a crash after it never brings the stream back.
     *
     * @param name the stream
     * @return whether a stream of that name existed
     * @throws UnsupportedOperationException when this store cannot (the default)
     * @throws StorageException              when the files cannot be deleted
     */
    default boolean delete(String name) {
        throw new UnsupportedOperationException(describe() + " cannot delete streams");
    }

    /**
     * Keeps a small document beside a stream (for example the JetStream configuration a network API
     * created it with), durably: replaced whole, never seen half written, kept across restarts and
     * crashes until the stream is {@link #delete deleted}. The stream need not be open.
     *
     * @param stream  the stream's name (a valid {@link StreamConfig#name()})
     * @param content the document, at most {@link #MAX_METADATA_BYTES}
     * @throws IllegalArgumentException      naming the value when the name or size is not valid
     * @throws UnsupportedOperationException when this store keeps no metadata (the default)
     * @throws StorageException              when it cannot be written
     */
    default void writeMetadata(String stream, byte[] content) {
        throw new UnsupportedOperationException(describe() + " keeps no stream metadata");
    }

    /**
     * @param stream the stream's name
     * @return the document last {@link #writeMetadata written} for it, or {@code null} when none
     * @throws StorageException when it cannot be read
     */
    default byte[] metadata(String stream) {
        return null;
    }

    /** @return the names of the stored streams that have {@link #writeMetadata metadata}, sorted */
    default List<String> streamsWithMetadata() {
        return List.of();
    }

    /** @return the directory the store keeps its files in, or empty when it has none (the default) */
    default Optional<Path> directory() {
        return Optional.empty();
    }

    /**
     * Small documents an extension of the server keeps in the store under its own {@code area}
     * (JetStream's consumers), written through the store's durability discipline.
     *
     * @param area a name (letters, digits, {@code -}, {@code _}), the documents' own namespace
     * @return the area's documents
     * @throws IllegalArgumentException      naming the area when it is not a valid name
     * @throws UnsupportedOperationException when this store keeps no documents (the default)
     */
    default Documents documents(String area) {
        throw new UnsupportedOperationException(describe() + " keeps no documents");
    }

    /**
     * @return the most bytes this store's streams hold together (past it they refuse new messages),
     *         or -1 when it has no such limit (the default)
     */
    default long maxBytes() {
        return -1;
    }

    /** @return the bytes this store's streams hold now, or -1 when it does not count them (the default) */
    default long usedBytes() {
        return -1;
    }

    /** @return the most bytes its memory streams ({@link StreamConfig.Medium#MEMORY}) hold together, or -1 */
    default long maxMemoryBytes() {
        return -1;
    }

    /** @return the bytes its memory streams hold now, or -1 when it does not count them (the default) */
    default long usedMemoryBytes() {
        return -1;
    }

    /** Closes every stream and consumer; appends acknowledged stay stored. Idempotent. */
    @Override
    void close();

    /**
     * The embedded log under {@code dir}, {@link FsyncPolicy#ALWAYS}: a publish returns once its
     * record is on the disk; concurrent publishers share each {@code fsync}.
     *
     * @param dir the directory, created if missing; one broker at a time (a lock file says so)
     * @return the storage
     */
    static Storage local(Path dir) {
        return local(dir, FsyncPolicy.ALWAYS, Duration.ofMillis(100));
    }

    /**
     * The embedded log under {@code dir} with a durability policy.
     *
     * @param dir      the directory, created if missing
     * @param policy   when records are forced to the disk
     * @param interval the force interval for {@link FsyncPolicy#INTERVAL}
     * @return the storage
     * @throws IllegalArgumentException naming the value when the interval is not positive
     * @throws StorageException         when the directory cannot be created or is locked by another process
     */
    static Storage local(Path dir, FsyncPolicy policy, Duration interval) {
        return new LocalStorage(dir, policy, interval, DEFAULT_MAX_PENDING_BYTES);
    }

    /**
     * The embedded log under {@code dir} with a durability policy and a limit on what it holds.
     *
     * @param dir      the directory, created if missing
     * @param policy   when records are forced to the disk
     * @param interval the force interval for {@link FsyncPolicy#INTERVAL}
     * @param maxBytes the most bytes its streams hold together, past which they refuse new messages
     *                 with JetStream's "insufficient resources" (nats-server's {@code max_file_store}); -1
     *                 for the default, what the store holds at open plus 75% of the disk's free space
     * @return the storage
     * @throws IllegalArgumentException naming the value when the interval or the limit is not positive
     * @throws StorageException         when the directory cannot be created or is locked by another process
     */
    static Storage local(Path dir, FsyncPolicy policy, Duration interval, long maxBytes) {
        return LocalStorage.limited(dir, policy, interval, DEFAULT_MAX_PENDING_BYTES, maxBytes);
    }

    /**
     * As {@link #local(Path, FsyncPolicy, Duration, long)} with a limit on memory streams
     * ({@link StreamConfig.Medium#MEMORY}). Their logs are files of the store kept in the page cache:
     * they count against {@code maxMemory} and, with every other stream, against {@code maxBytes}.
     *
     * @param maxMemory the most bytes memory streams hold together, past which they refuse new messages
     *                  with "insufficient resources" (nats-server's {@code max_memory_store}); -1 for the
     *                  default, three quarters of the machine's memory
     * @return the storage
     * @throws IllegalArgumentException naming the value when the interval or a limit is not positive
     * @throws StorageException         when the directory cannot be created or is locked by another process
     */
    static Storage local(Path dir, FsyncPolicy policy, Duration interval, long maxBytes, long maxMemory) {
        return LocalStorage.limited(dir, policy, interval, DEFAULT_MAX_PENDING_BYTES, maxBytes, maxMemory);
    }
}
