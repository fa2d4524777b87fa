package io.ringbus.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A server under a power-cut run ({@link PowerCutRun}): started on a directory of the power-loss
 * file system, killed with SIGKILL before each cut, and asked afterwards what the directory holds.
 * Implementations: {@link RingbusCutTarget} (ringbus-server with a durable pattern) and
 * {@link NatsCutTarget} (nats-server 2.9 with JetStream).
 *
 * <p>Threading: one run drives it from one thread.
 */
interface PowerCutTarget {
    /** The subjects the stream stores; publishers publish to {@code orders.<publisher>}. */
    String SUBJECTS = "orders.>";
    /** The stream's name in both servers. */
    String STREAM = "orders_all";

    /** @return the server's name for the table ({@code ringbus}, {@code nats-server}) */
    String server();

    /** @return the durability policy for the table ({@code always}, {@code interval}, {@code os}, ...) */
    String policy();

    /**
     * Starts the server on {@code dir} and waits until it accepts clients and stores the stream.
     *
     * @param dir the store's directory, on the power-loss mount
     * @return its client port on 127.0.0.1
     * @throws IOException    when it cannot be started
     * @throws AssertionError when it refuses to start (what a cut must never cause)
     */
    int start(Path dir) throws IOException;

    /** Kills the server with SIGKILL and waits until it is gone (no file left open on the mount). */
    void kill();

    /**
     * Reads every record the store holds, the server stopped (killed and the power cut).
     *
     * @param dir the store's directory
     * @return the records in stream order
     * @throws IOException    when the store cannot be read
     * @throws AssertionError when it cannot be opened (what a cut must never cause)
     */
    List<StoredId> readBack(Path dir) throws IOException;

    /** @return what else the table should say about the run (empty by default) */
    default String notes() {
        return "";
    }

    /**
     * A record read back: its stream sequence and the message id its payload starts with.
     *
     * @param sequence the stream sequence
     * @param id       the id ({@code <publisher>-<number>})
     */
    record StoredId(long sequence, String id) {
    }
}
