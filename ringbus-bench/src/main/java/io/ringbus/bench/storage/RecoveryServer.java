package io.ringbus.bench.storage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A server of the recovery benchmark ({@link RecoveryBenchmark}): a store it is filled into, a
 * process it is started as on that store and killed (SIGKILL), and what a power cut would take
 * from that store beyond what the server forced.
 */
interface RecoveryServer extends AutoCloseable {
    /** @return its name in the results: {@code ringbus-server} or {@code nats-server} */
    String system();

    /** @return how its store is filled, for the results */
    String filledBy();

    /**
     * Fills an empty store with {@code messages} of {@code payloadBytes} to subject
     * {@value RecoveryBenchmark#FILL_SUBJECT}, and leaves no process running on it.
     */
    void fill(long messages, int payloadBytes) throws IOException, InterruptedException;

    /** @return the store's bytes on disk */
    long storeBytes() throws IOException;

    /**
     * Starts the server on its store without waiting for it.
     *
     * @param port its client port on 127.0.0.1
     * @param log  the file its output goes to
     * @return the process
     */
    Process start(int port, Path log) throws IOException;

    /**
     * Removes from the store what a power cut can take that the server never forced (the store is
     * not in use).
     *
     * @return what was removed, for the results
     */
    String cut() throws IOException;

    /**
     * @param log a run's output
     * @return how long the server itself says opening its store took, or NaN when it does not say
     */
    double storeOpenMillis(Path log) throws IOException;

    /**
     * @param log a run's output
     * @return the bytes the server says it read to open its store, or -1 when it does not say
     */
    long openReadBytes(Path log) throws IOException;

    /** Deletes the store. */
    @Override
    void close();
}
