package io.ringbus.bench.storage;

import io.ringbus.bench.Median;
import io.ringbus.bench.network.EphemeralPorts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JetStream side of the storage scenario: one private nats-server with its file store in
 * {@code workDir/js}, driven by jsload. Publish runs create and delete their own stream; the read
 * runs fill a stream, replay it with an ordered consumer and acknowledge it with a pull consumer;
 * a restart stops the server (SIGTERM) and times a new process until the first message is read.
 */
final class JetStreamPeer implements AutoCloseable {
    /** The policy column of the peer's rows: its file store's only setting in 2.9 (see {@link #SYNC}). */
    static final String POLICY = "default";
    /** How nats-server 2.9's file store forces, as the results say it. */
    static final String SYNC = "nats-server 2.9 has no sync_interval option (2.10 added it, and 'always'): its file"
            + " store acknowledges once written to the page cache and fsyncs every 2 minutes (observed with strace),"
            + " i.e. like ringbus OS; ringbus ALWAYS and INTERVAL are compared against that default";

    private final Path binary;
    private final JsLoad load;
    private final Path storeDir;
    private final Path log;
    private final Path loadLog;
    private final Duration timeout;
    private final int port;
    private JetStreamServer server;

    /**
     * @param binary  nats-server
     * @param load    jsload
     * @param workDir where the store and the logs go
     * @param timeout longest one jsload run may take
     */
    JetStreamPeer(Path binary, JsLoad load, Path workDir, Duration timeout) {
        this.binary = binary;
        this.load = load;
        this.storeDir = workDir.resolve("js");
        this.log = workDir.resolve("nats-server.log");
        this.loadLog = workDir.resolve("jsload.log");
        this.timeout = timeout;
        this.port = EphemeralPorts.pick();
    }

    /** @return the command line, for the report */
    String describe() {
        return binary + " -js -sd " + storeDir + " -a 127.0.0.1 -p " + port + "  (log " + log + ")";
    }

    /** Starts the server, unless it runs, and waits until it listens. */
    void start() throws IOException, InterruptedException {
        if (server != null && server.alive()) {
            return;
        }
        Files.createDirectories(storeDir);
        server = JetStreamServer.spawn(binary, storeDir, port, log);
        server.awaitListening(Duration.ofSeconds(30));
    }

    private JsLoadResult run(String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("-url", server.url(), "-timeout", timeout.toSeconds() + "s"));
        all.addAll(List.of(args));
        return load.run(all, timeout.plusSeconds(30), loadLog);
    }

    /**
     * One publish case on a fresh stream, deleted afterwards.
     *
     * @param c        the case
     * @param window   async: outstanding publishes per publisher
     * @param warmup   unmeasured publishing
     * @param duration measured publishing
     * @return the run
     */
    StorageResults.PublishRow publish(PublishCase c, int window, Duration warmup, Duration duration)
            throws InterruptedException {
        List<String> args = new ArrayList<>(List.of("-mode", "publish", "-stream", "BENCH", "-subject", "bench",
                "-pubs", Integer.toString(c.publishers()), "-size", Integer.toString(c.payloadBytes()), "-window",
                Integer.toString(window), "-warmup", warmup.toMillis() + "ms", "-duration", duration.toMillis() + "ms"));
        if (!c.async()) {
            args.add("-sync");
        }
        try {
            JsLoadResult r = run(args.toArray(String[]::new));
            return new StorageResults.PublishRow("jetstream", POLICY, c.mode(), c.payloadBytes(), c.publishers(),
                    r.messages(), r.seconds(), r.perSecond(), r.p50Micros(), r.p99Micros(), r.maxMicros(), Double.NaN,
                    r.failure());
        } catch (IOException e) {
            return new StorageResults.PublishRow("jetstream", POLICY, c.mode(), c.payloadBytes(), c.publishers(), 0,
                    Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, e.getMessage());
        }
    }

    /**
     * Fills a stream, replays it with an ordered consumer, acknowledges it with a pull consumer,
     * and deletes it.
     *
     * @param records      messages
     * @param payloadBytes their payload
     * @param ackBatch     the pull consumer's batch
     * @param window       filling: outstanding publishes
     * @return replay and acknowledgement runs
     */
    List<StorageResults.ReadRow> read(long records, int payloadBytes, int ackBatch, int window)
            throws InterruptedException {
        String n = Long.toString(records);
        List<StorageResults.ReadRow> rows = new ArrayList<>();
        try {
            JsLoadResult fill = run("-mode", "fill", "-stream", "READ", "-subject", "read", "-msgs", n, "-size",
                    Integer.toString(payloadBytes), "-window", Integer.toString(window));
            if (fill.failure() != null) {
                throw new IOException("fill: " + fill.failure());
            }
            rows.add(row("replay", "ordered consumer", run("-mode", "replay", "-stream", "READ", "-subject", "read",
                    "-msgs", n)));
            rows.add(row("ack", "pull consumer, fetch " + ackBatch + " + ack each", run("-mode", "ack", "-stream",
                    "READ", "-subject", "read", "-msgs", n, "-batch", Integer.toString(ackBatch))));
        } catch (IOException e) {
            rows.add(new StorageResults.ReadRow("replay", "jetstream", "ordered consumer", 0, Double.NaN, Double.NaN,
                    Double.NaN, e.getMessage()));
        } finally {
            ScratchDirectory.deleteTree(streamDir("READ"));
        }
        return rows;
    }

    private static StorageResults.ReadRow row(String part, String reader, JsLoadResult r) {
        return new StorageResults.ReadRow(part, "jetstream", reader, r.messages(), r.seconds(), r.perSecond(),
                Double.NaN, r.failure());
    }

    private Path streamDir(String stream) {
        return storeDir.resolve("jetstream").resolve("$G").resolve("streams").resolve(stream);
    }

    /**
     * Fills a stream with {@code records}, then {@code runs} times stops the server and times a new
     * one from its process start until jsload has read the stream's first message. Leaves the
     * server stopped and the stream deleted: call it last.
     *
     * @param records      messages
     * @param payloadBytes their payload
     * @param window       filling: outstanding publishes
     * @param runs         restarts
     * @return the median restart and the slowest
     */
    StorageResults.RestartRow restart(long records, int payloadBytes, int window, int runs)
            throws InterruptedException {
        double[] first = new double[runs];
        long bytes = 0;
        try {
            JsLoadResult fill = run("-mode", "fill", "-stream", "RESTART", "-subject", "restart", "-msgs",
                    Long.toString(records), "-size", Integer.toString(payloadBytes), "-window", Integer.toString(window));
            if (fill.failure() != null) {
                throw new IOException("fill: " + fill.failure());
            }
            for (int i = 0; i < runs; i++) {
                server.stop();
                bytes = ScratchDirectory.bytesUnder(streamDir("RESTART"));
                long start = System.nanoTime();
                server = JetStreamServer.spawn(binary, storeDir, port, log);
                run("-mode", "first", "-stream", "RESTART", "-subject", "restart");
                first[i] = (System.nanoTime() - start) / 1e6;
            }
            double slowest = 0;
            for (double f : first) {
                slowest = Math.max(slowest, f);
            }
            return new StorageResults.RestartRow("jetstream", bytes, records, runs, Double.NaN, Double.NaN,
                    Median.of(first), slowest, null);
        } catch (IOException e) {
            return new StorageResults.RestartRow("jetstream", bytes, records, runs, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, String.format(Locale.ROOT, "%s%n%s", e.getMessage(), server.logTail(5)));
        } finally {
            server.stop();
            ScratchDirectory.deleteTree(streamDir("RESTART"));
        }
    }

    /**
     * A nats-server of its own for the recovery part, with this peer's binary and jsload.
     *
     * @param parent  where its store goes
     * @param timeout longest its fill may take
     * @param window  filling: outstanding publishes
     * @return the server, its store empty
     */
    RecoveryServer recoveryServer(Path parent, Duration timeout, int window) throws IOException {
        return new JetStreamRecoveryServer(binary, load, parent, timeout, window);
    }

    /** Stops the server. */
    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
