package io.ringbus.bench.storage;

import io.ringbus.bench.network.ServerBinaries;
import io.ringbus.bench.network.ServerKind;
import io.ringbus.bench.network.ServerProcess;
import io.ringbus.core.FsyncPolicy;
import io.ringbus.core.Storage;
import io.ringbus.core.StreamConfig;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * ringbus-server with {@code --durable 'recovery.>'} (fsync {@code always}, the default) on a store
 * filled in this process through {@link Storage} (the same store format, written under {@code OS}
 * and closed: much faster than through the network). Started from {@code ringbus-server.jar} when
 * it is built, else from this JVM's class path.
 */
final class RingbusRecoveryServer implements RecoveryServer {
    private static final String MAIN = "io.ringbus.server.RingbusServerMain";
    /** The log's index checkpoint ({@code LogConfig.DEFAULT_INDEX_CHECKPOINT_BYTES}, docs/storage.md). */
    private static final long CHECKPOINT_BYTES = 8L << 20;
    private static final int INTERVAL_BYTES = 4096;
    private static final int ENTRY_BYTES = 24;
    /** The line {@code LocalStream} logs when the stream is open. */
    private static final Pattern OPENED = Pattern.compile("stream 'recovery_all' opened in (\\d+) ms: .* read (\\d+) bytes");

    private final ScratchDirectory store;
    private final Path serverJar;
    private final int window;

    /**
     * @param parent    where the store's directory is created
     * @param serverJar {@code ringbus-server.jar}, or null to start the server from this JVM's class path
     * @param window    filling: outstanding appends
     */
    RingbusRecoveryServer(Path parent, Path serverJar, int window) throws IOException {
        this.store = ScratchDirectory.create(parent, "ringbus-recovery-");
        this.serverJar = serverJar;
        this.window = window;
    }

    /** @return ringbus-server.jar when built (see {@link ServerBinaries}), else null */
    static Path locateJar(Path explicit) {
        try {
            return ServerBinaries.locate(Set.of(ServerKind.RINGBUS), explicit, null).ringbusJar();
        } catch (IllegalArgumentException e) {
            if (explicit != null) {
                throw e;
            }
            return null;
        }
    }

    @Override
    public String system() {
        return "ringbus-server";
    }

    @Override
    public String filledBy() {
        return "in process through Storage.local (OS policy, then closed), the server's store format";
    }

    @Override
    public void fill(long messages, int payloadBytes) {
        try (Storage storage = Storage.local(store.path(), FsyncPolicy.OS, Duration.ofMillis(100))) {
            RingbusRead.fill(storage.stream(StreamConfig.of(RecoveryBenchmark.PATTERN)), messages, payloadBytes, window,
                    RecoveryBenchmark.FILL_SUBJECT);
        }
    }

    @Override
    public long storeBytes() throws IOException {
        return ScratchDirectory.bytesUnder(logDir());
    }

    private Path logDir() {
        return store.path().resolve("streams").resolve(StreamConfig.of(RecoveryBenchmark.PATTERN).name()).resolve("log");
    }

    @Override
    public Process start(int port, Path log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx2g"); // as bin/run
        command.addAll(ServerKind.RUN_JVM_OPTIONS);
        if (serverJar != null) {
            command.addAll(List.of("-jar", serverJar.toString()));
        } else {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), MAIN));
        }
        command.addAll(List.of("-a", "127.0.0.1", "-p", Integer.toString(port), "--no-monitor", "--storage-dir",
                store.path().toString(), "--durable", RecoveryBenchmark.PATTERN));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ServerProcess.track(process); // killed at this JVM's exit if still running
        return process;
    }

    /**
     * Cuts from the active segment's index the entries of its last {@link #CHECKPOINT_BYTES} of log
     * (and one more): all a power cut can take, since the flusher forces that index every
     * {@link #CHECKPOINT_BYTES} (docs/storage.md: an entry of
     * {@value #ENTRY_BYTES} bytes per {@value #INTERVAL_BYTES} bytes of log at least). The rolled
     * segments' sealed indexes were forced at their roll.
     */
    @Override
    public String cut() throws IOException {
        Path active;
        try (Stream<Path> files = Files.list(logDir())) {
            active = files.filter(f -> f.getFileName().toString().endsWith(".idx")).max(Path::compareTo).orElse(null);
        }
        if (active == null) {
            return "no index";
        }
        long cut = (CHECKPOINT_BYTES / INTERVAL_BYTES + 1) * ENTRY_BYTES;
        try (FileChannel channel = FileChannel.open(active, StandardOpenOption.WRITE)) {
            long keep = Math.max(0, channel.size() - cut) / ENTRY_BYTES * ENTRY_BYTES;
            channel.truncate(keep);
        }
        return String.format(Locale.ROOT, "the active segment's index entries for its last %d MiB of log removed (the"
                + " flusher forces that index every %d MiB)", CHECKPOINT_BYTES >> 20, CHECKPOINT_BYTES >> 20);
    }

    @Override
    public double storeOpenMillis(Path log) throws IOException {
        Matcher m = OPENED.matcher(Files.readString(log, StandardCharsets.UTF_8));
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    @Override
    public long openReadBytes(Path log) throws IOException {
        Matcher m = OPENED.matcher(Files.readString(log, StandardCharsets.UTF_8));
        return m.find() ? Long.parseLong(m.group(2)) : -1;
    }

    @Override
    public void close() {
        store.close();
    }
}
