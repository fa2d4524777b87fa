package io.ringbus.bench.storage;

import io.ringbus.bench.network.EphemeralPorts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * nats-server {@code -js} with its file store, the stream {@value #STREAM} on {@code recovery.>}
 * filled by jsload (nats.go, one async publisher) through the network, then the server killed.
 */
final class JetStreamRecoveryServer implements RecoveryServer {
    static final String STREAM = "RECOVERY";
    private static final Pattern STAMP = Pattern.compile("(\\d\\d:\\d\\d:\\d\\d\\.\\d{6}) \\[INF\\]\\s+");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");

    private final Path binary;
    private final JsLoad load;
    private final ScratchDirectory store;
    private final Duration timeout;
    private final int window;

    /**
     * @param binary  nats-server
     * @param load    jsload
     * @param parent  where the store's directory is created
     * @param timeout longest the fill may take
     * @param window  filling: outstanding publishes
     */
    JetStreamRecoveryServer(Path binary, JsLoad load, Path parent, Duration timeout, int window) throws IOException {
        this.binary = binary;
        this.load = load;
        this.store = ScratchDirectory.create(parent, "jetstream-recovery-");
        this.timeout = timeout;
        this.window = window;
    }

    @Override
    public String system() {
        return "nats-server";
    }

    @Override
    public String filledBy() {
        return "jsload (nats.go) over loopback, one async publisher, window " + window + "; then the server killed";
    }

    @Override
    public void fill(long messages, int payloadBytes) throws IOException, InterruptedException {
        int port = EphemeralPorts.pick();
        Path log = store.path().resolve("fill.log");
        try (JetStreamServer server = JetStreamServer.spawn(binary, storeDir(), port, log)) {
            server.awaitListening(Duration.ofSeconds(30));
            JsLoadResult r = load.run(List.of("-url", server.url(), "-timeout", timeout.toSeconds() + "s", "-mode", "fill",
                    "-stream", STREAM, "-subject", "recovery", "-msgs", Long.toString(messages), "-size",
                    Integer.toString(payloadBytes), "-window", Integer.toString(window)), timeout.plusSeconds(30),
                    store.path().resolve("jsload.log"));
            if (r.failure() != null) {
                throw new IOException("jsload fill: " + r.failure());
            }
        } // killed (SIGKILL), as the runs kill it
    }

    private Path storeDir() {
        return store.path().resolve("js");
    }

    private Path streamDir() {
        return storeDir().resolve("jetstream").resolve("$G").resolve("streams").resolve(STREAM);
    }

    @Override
    public long storeBytes() throws IOException {
        return ScratchDirectory.bytesUnder(streamDir());
    }

    @Override
    public Process start(int port, Path log) throws IOException {
        return JetStreamServer.spawn(binary, storeDir(), port, log).process();
    }

    /**
     * Deletes every block's {@code .idx} and {@code .fss}: nats-server 2.9.10 never fsyncs them (strace
     * shows no fsync while a stream is filled; its blocks are synced every 2 minutes). The blocks and
     * the stream's metadata are kept, as if synced: the data is all there.
     */
    @Override
    public String cut() throws IOException {
        int removed = 0;
        try (Stream<Path> files = Files.list(streamDir().resolve("msgs"))) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".idx") || name.endsWith(".fss")) {
                    Files.delete(f);
                    removed++;
                }
            }
        }
        return removed + " block index files (.idx, .fss, never fsynced) deleted; blocks and metadata kept";
    }

    /** @return from its log: "Starting restore for stream" to "Restored ... for stream" */
    @Override
    public double storeOpenMillis(Path log) throws IOException {
        LocalTime started = null;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher m = STAMP.matcher(line);
            if (!m.find()) {
                continue;
            }
            LocalTime at = LocalTime.parse(m.group(1), TIME);
            if (line.contains("Starting restore for stream") && line.contains(STREAM)) {
                started = at;
            } else if (started != null && line.contains("Restored") && line.contains(STREAM)) {
                return Duration.between(started, at).toNanos() / 1e6;
            }
        }
        return Double.NaN;
    }

    @Override
    public long openReadBytes(Path log) {
        return -1;
    }

    @Override
    public void close() {
        store.close();
    }
}
