package io.ringbus.core;

import io.ringbus.core.internal.store.LocalStorage;

import java.nio.file.Path;
import java.time.Duration;

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
}
