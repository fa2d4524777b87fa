package io.ringbus.bench.storage;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.ResultsFile;
import io.ringbus.core.FsyncPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The {@code storage} subcommand, issue 17's benchmark: ringbus's local store (the segment log,
 * in process) against nats-server's JetStream file store (driven by nats.go), on the same machine
 * and disk, in one run: the disk's fsync rate; durable publish rate and latency per case and
 * policy; replay and acknowledgement rates; restart time against the log's size; and, only when
 * named ({@code bin/bench storage recovery}, issue 30), each server's time to serve after a kill and
 * after a cut with 1 GiB and 10 GiB stores ({@link RecoveryBenchmark}). Exit code 0 when every run
 * completed (goals met or not), 2 when one failed, 1 when the peer could not be set up.
 */
@Command(name = "storage",
        description = "ringbus's local store (in-process StoredStream) against nats-server's JetStream file store"
                + " (nats.go): fsync rate of the disk, durable publish (async window and sync; ALWAYS, INTERVAL, OS),"
                + " replay, consumer acks, restart time; 'storage recovery': time to serve after a kill and a cut,"
                + " ringbus-server and nats-server, 1 and 10 GiB.")
public final class StorageCommand implements Callable<Integer> {
    /** Publish modes. */
    enum Mode { ASYNC, SYNC }

    /** The parts of the scenario; ALL is every one but RECOVERY, which runs only when named. */
    enum Part { FSYNC, PUBLISH, READ, RESTART, RECOVERY, ALL }

    /** The policy of the read and restart parts' ringbus store. */
    static final FsyncPolicy READ_POLICY = FsyncPolicy.INTERVAL;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--only", split = ",", description = "parts to run, among FSYNC, PUBLISH, READ, RESTART, RECOVERY,"
            + " ALL (default: ALL, which is every part but RECOVERY)")
    List<Part> only = new ArrayList<>(List.of(Part.ALL));

    @Parameters(arity = "0..*", paramLabel = "PART", description = "parts to run, as --only, any case: 'storage"
            + " recovery' runs RECOVERY alone")
    List<String> parts = new ArrayList<>();

    @Option(names = "--recovery-mib", split = ",", description = "recovery: payload MiB per store, 0 for one message"
            + " (the servers' start-up floor) (default: 0,1024,10240)")
    List<Long> recoveryMib = new ArrayList<>(List.of(0L, 1024L, 10240L));

    @Option(names = "--recovery-size", description = "recovery: payload bytes per message (default: ${DEFAULT-VALUE})")
    int recoverySize = 1024;

    @Option(names = "--recovery-runs", description = "recovery: restarts per server, size and scenario, the median"
            + " reported (default: ${DEFAULT-VALUE})")
    int recoveryRuns = 3;

    @Option(names = "--recovery-keep-cache", description = "recovery: do not drop the page cache before each start"
            + " (dropping it needs root)")
    boolean recoveryKeepCache;

    @Option(names = "--server-jar", description = "recovery: ringbus-server.jar (default: ringbus-server/target/;"
            + " without it the server starts from this JVM's class path)")
    Path serverJar;

    @Option(names = "--server-from-classpath", description = "recovery: start ringbus-server from this JVM's class"
            + " path even where its jar is built (tests)")
    boolean serverFromClasspath;

    @Option(names = "--records", description = "replay and ack: records written, then read back (default: ${DEFAULT-VALUE};"
            + " issue 17 asks 10000000)")
    long records = 1_000_000;

    @Option(names = "--sizes", split = ",", description = "publish: payload bytes (default: 128,1024)")
    List<Integer> sizes = new ArrayList<>(List.of(128, 1_024));

    @Option(names = "--publishers", split = ",", description = "publish: concurrent publishers (default: 1,4)")
    List<Integer> publishers = new ArrayList<>(List.of(1, 4));

    @Option(names = "--policies", split = ",", description = "publish: ringbus policies, among ALWAYS, INTERVAL, OS"
            + " (default: all)")
    List<FsyncPolicy> policies = new ArrayList<>(List.of(FsyncPolicy.ALWAYS, FsyncPolicy.INTERVAL, FsyncPolicy.OS));

    @Option(names = "--modes", split = ",", description = "publish: ASYNC (a window of outstanding publishes), SYNC"
            + " (one at a time) (default: both)")
    List<Mode> modes = new ArrayList<>(List.of(Mode.ASYNC, Mode.SYNC));

    @Option(names = "--window", description = "async publish and fills: outstanding publishes per publisher, both systems"
            + " (default: ${DEFAULT-VALUE})")
    int window = 1_000;

    @Option(names = "--interval", converter = HumanDurationConverter.class,
            description = "ringbus INTERVAL's force interval (default: 100ms)")
    Duration interval = Duration.ofMillis(100);

    @Option(names = "--duration", converter = HumanDurationConverter.class,
            description = "publish: measured time per run (default: 2s)")
    Duration duration = Duration.ofSeconds(2);

    @Option(names = "--warmup", converter = HumanDurationConverter.class,
            description = "publish: unmeasured publishing before it (default: 500ms)")
    Duration warmup = Duration.ofMillis(500);

    @Option(names = "--read-size", description = "replay and ack: payload bytes (default: ${DEFAULT-VALUE})")
    int readSize = 128;

    @Option(names = "--replay-batch", description = "replay: ringbus consumer's fetch size (default: ${DEFAULT-VALUE})")
    int replayBatch = 1_000;

    @Option(names = "--ack-batch", description = "ack: fetch size of both consumers (default: ${DEFAULT-VALUE})")
    int ackBatch = 100;

    @Option(names = "--restart-mib", split = ",", description = "restart: log sizes in MiB, 0 for none (default: 100;"
            + " issue 17 asks 1024)")
    List<Integer> restartMib = new ArrayList<>(List.of(100));

    @Option(names = "--restart-size", description = "restart: payload bytes per record (default: ${DEFAULT-VALUE})")
    int restartSize = 128;

    @Option(names = "--restart-runs", description = "restart: restarts per log, the median reported (default: ${DEFAULT-VALUE})")
    int restartRuns = 3;

    @Option(names = "--fsyncs", description = "disk: 128 B writes each forced (default: ${DEFAULT-VALUE})")
    int fsyncs = 2_000;

    @Option(names = "--dir", description = "where the stores are written (default: the system's temporary directory)")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"));

    @Option(names = "--no-jetstream", description = "ringbus alone: no nats-server, no Go")
    boolean noJetStream;

    @Option(names = "--nats-server", description = "the nats-server binary (default: on PATH or /usr/sbin)")
    Path natsServer;

    @Option(names = "--jsload", description = "a jsload binary already built (default: built now from"
            + " ringbus-bench/src/main/go/jsload with Debian's Go and nats.go)")
    Path jsload;

    @Option(names = "--timeout", converter = HumanDurationConverter.class,
            description = "longest one run may take (default: 300s)")
    Duration timeout = Duration.ofSeconds(300);

    @Mixin
    ResultsFile json;

    /** Creates the command; picocli fills in the options. */
    public StorageCommand() {
    }

    @Override
    public Integer call() throws Exception {
        try {
            if (!parts.isEmpty()) {
                only = new ArrayList<>();
                for (String part : parts) {
                    only.add(part(part));
                }
            }
            validate();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintStream out = System.out;
        JvmDescription jvm = JvmDescription.current();
        out.println(jvm.headline());
        String kernel = System.getProperty("os.name") + " " + System.getProperty("os.version");
        Files.createDirectories(dir);
        String fileStore = Files.getFileStore(dir).name() + " (" + Files.getFileStore(dir).type() + ")";
        out.printf(Locale.ROOT, "storage scenario: %s, stores under %s on %s%n", kernel, dir.toAbsolutePath(), fileStore);
        try (ScratchDirectory work = ScratchDirectory.create(dir, "ringbus-bench-storage-")) {
            JetStreamPeer peer = null;
            String natsVersion = null;
            if (!noJetStream) {
                Path binary = JetStreamServer.locate(natsServer);
                try {
                    if (binary == null) {
                        throw new IllegalStateException("nats-server not found"
                                + (natsServer != null ? " at " + natsServer : " on the PATH or in /usr/sbin")
                                + ": bin/bench-deps installs it");
                    }
                    natsVersion = JetStreamServer.version(binary);
                    peer = new JetStreamPeer(binary, JsLoad.prepare(jsload, work.path()), work.path(), timeout);
                } catch (IllegalStateException e) {
                    System.err.println("FAILED: the JetStream peer cannot run (--no-jetstream runs ringbus alone): "
                            + e.getMessage());
                    return 1;
                }
                out.printf(Locale.ROOT, "peer: %s, nats.go %s; %s%n", natsVersion, JsLoad.natsGoVersion(),
                        peer.describe());
                out.println("  " + JetStreamPeer.SYNC);
            }
            try {
                StorageReport report = run(work.path(), peer, out);
                out.println();
                out.print(report.text());
                if (json.requested()) {
                    StorageResults head = new StorageResults(StorageResults.SCENARIO, jvm.vm(), jvm.cores(),
                            new StorageResults.Machine(kernel, dir.toAbsolutePath().toString(), fileStore, natsVersion,
                                    peer == null ? null : JsLoad.natsGoVersion(), peer == null ? null : JetStreamPeer.SYNC),
                            new StorageResults.Settings(window, interval.toMillis(), duration.toNanos() / 1e9,
                                    warmup.toNanos() / 1e9, records, readSize, replayBatch, ackBatch, READ_POLICY.name(),
                                    restartSize),
                            null, List.of(), List.of(), List.of(), List.of(), List.of());
                    json.write(report.document(head), out);
                }
                if (!report.passed()) {
                    System.err.println("FAILED: see the FAILED lines above");
                    return 2;
                }
                return 0;
            } finally {
                if (peer != null) {
                    peer.close();
                }
            }
        }
    }

    private StorageReport run(Path work, JetStreamPeer peer, PrintStream out) throws IOException, InterruptedException {
        StorageResults.Fsync fsync = null;
        if (runs(Part.FSYNC)) {
            fsync = FsyncProbe.measure(work, fsyncs);
            out.printf(Locale.ROOT, "  disk: %,.0f fsyncs/s (p50 %.0f us, p99 %.0f us)%n", fsync.perSecond(),
                    fsync.p50Micros(), fsync.p99Micros());
        }
        if (peer != null && (runs(Part.PUBLISH) || runs(Part.READ))) {
            peer.start();
        }
        List<StorageResults.PublishRow> publish = new ArrayList<>();
        RingbusPublish ringbus = new RingbusPublish(work, interval, window, warmup, duration);
        for (int size : runs(Part.PUBLISH) ? sizes : List.<Integer>of()) {
            for (int count : publishers) {
                for (Mode mode : modes) {
                    PublishCase c = new PublishCase(mode == Mode.ASYNC, size, count);
                    if (peer != null) {
                        publish.add(progress(out, peer.publish(c, window, warmup, duration)));
                    }
                    for (FsyncPolicy policy : policies) {
                        publish.add(progress(out, ringbus.run(policy, c)));
                    }
                }
            }
        }
        List<StorageResults.ReadRow> read = new ArrayList<>();
        if (runs(Part.READ)) {
            read.addAll(read(work, peer, out));
        }
        List<StorageResults.RestartRow> restart = new ArrayList<>();
        RingbusRestart restarts = new RingbusRestart(READ_POLICY, interval, window);
        for (int mib : runs(Part.RESTART) ? restartMib : List.<Integer>of()) {
            if (mib == 0) {
                continue;
            }
            long logRecords;
            try (ScratchDirectory store = ScratchDirectory.create(work, "ringbus-restart-")) {
                logRecords = restarts.fill(store.path(), (long) mib << 20, restartSize);
                restart.add(progress(out, restarts.restart(store.path(), logRecords, restartRuns)));
            }
            if (peer != null) {
                peer.start();
                restart.add(progress(out, peer.restart(logRecords, restartSize, window, restartRuns)));
            }
        }
        List<StorageResults.RecoveryRow> recovery = only.contains(Part.RECOVERY) ? recovery(work, peer, out)
                : List.of();
        return new StorageReport(fsync, publish, read, restart, recovery, runs(Part.PUBLISH)
                ? policies.stream().map(Enum::name).toList() : List.of());
    }

    /** Issue 30: each size, ringbus-server then nats-server, one store on the disk at a time. */
    private List<StorageResults.RecoveryRow> recovery(Path work, JetStreamPeer peer, PrintStream out)
            throws IOException, InterruptedException {
        Path jar = serverFromClasspath ? null : RingbusRecoveryServer.locateJar(serverJar);
        out.printf(Locale.ROOT, "recovery: ringbus-server %s; page cache %s before each start%n",
                jar != null ? "from " + jar : "from this JVM's class path (no ringbus-server.jar)",
                recoveryKeepCache ? "kept" : "dropped");
        RecoveryBenchmark benchmark = new RecoveryBenchmark(work, recoverySize, recoveryRuns, !recoveryKeepCache,
                timeout, out);
        List<StorageResults.RecoveryRow> rows = new ArrayList<>();
        for (long mib : recoveryMib) {
            rows.addAll(benchmark.run(new RingbusRecoveryServer(work, jar, window), mib << 20));
            if (peer != null) {
                rows.addAll(benchmark.run(peer.recoveryServer(work, timeout, window), mib << 20));
            }
        }
        return rows;
    }

    private static Part part(String name) {
        try {
            return Part.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown part (FSYNC, PUBLISH, READ, RESTART, RECOVERY, ALL): part='"
                    + name + "'", e);
        }
    }

    private List<StorageResults.ReadRow> read(Path work, JetStreamPeer peer, PrintStream out)
            throws IOException, InterruptedException {
        List<StorageResults.ReadRow> read = new ArrayList<>();
        try (ScratchDirectory store = ScratchDirectory.create(work, "ringbus-read-")) {
            for (StorageResults.ReadRow r : new RingbusRead(store.path(), READ_POLICY, interval, window, timeout)
                    .run(records, readSize, replayBatch, ackBatch)) {
                read.add(progress(out, r));
            }
        }
        if (peer != null) {
            for (StorageResults.ReadRow r : peer.read(records, readSize, ackBatch, window)) {
                read.add(progress(out, r));
            }
        }
        return read;
    }

    private boolean runs(Part part) {
        return only.contains(Part.ALL) && part != Part.RECOVERY || only.contains(part);
    }

    private static StorageResults.PublishRow progress(PrintStream out, StorageResults.PublishRow r) {
        out.printf(Locale.ROOT, "  %-9s %-8s %-16s %s%n", r.system(), r.policy(),
                PublishCase.label(r.mode(), r.payloadBytes(), r.publishers()), r.failure() != null
                        ? "FAILED: " + r.failure()
                        : String.format(Locale.ROOT, "%,12.0f msg/s  p50 %,10.0f us  p99 %,10.0f us  (%,d in %.2f s)",
                        r.perSecond(), r.p50Micros(), r.p99Micros(), r.messages(), r.seconds()));
        return r;
    }

    private static StorageResults.ReadRow progress(PrintStream out, StorageResults.ReadRow r) {
        out.printf(Locale.ROOT, "  %-9s %-6s %-40s %s%n", r.system(), r.part(), r.reader(), r.failure() != null
                ? "FAILED: " + r.failure()
                : String.format(Locale.ROOT, "%,12.0f records/s  (%,d in %.2f s)", r.perSecond(), r.messages(),
                r.seconds()));
        return r;
    }

    private static StorageResults.RestartRow progress(PrintStream out, StorageResults.RestartRow r) {
        out.printf(Locale.ROOT, "  %-9s restart %,.0f MiB (%,d records): %s%n", r.system(), r.logBytes() / 1048576.0,
                r.records(), r.failure() != null ? "FAILED: " + r.failure()
                        : String.format(Locale.ROOT, "first record after %.1f ms (median of %d, slowest %.1f ms)",
                        r.firstRecordMillis(), r.runs(), r.maxFirstRecordMillis()));
        return r;
    }

    private void validate() {
        positive("records", records);
        positive("window", window);
        positive("replay-batch", replayBatch);
        positive("ack-batch", ackBatch);
        positive("restart-runs", restartRuns);
        positive("fsyncs", fsyncs);
        positive("recovery-runs", recoveryRuns);
        if (recoverySize < 1 || recoverySize > 1 << 20) {
            throw new IllegalArgumentException("recovery-size must be in [1, 1048576]: recovery-size=" + recoverySize);
        }
        for (long m : recoveryMib) {
            if (m < 0) {
                throw new IllegalArgumentException("recovery-mib must be >= 0: recovery-mib=" + m);
            }
        }
        if (readSize < 0 || restartSize < 0) {
            throw new IllegalArgumentException("payload sizes must be >= 0: read-size=" + readSize + ", restart-size="
                    + restartSize);
        }
        if (only.isEmpty()) {
            throw new IllegalArgumentException("--only needs at least one part: only=" + only);
        }
        if (sizes.isEmpty() || publishers.isEmpty() || modes.isEmpty() || policies.isEmpty()) {
            throw new IllegalArgumentException("--sizes, --publishers, --modes and --policies need a value each: sizes="
                    + sizes + ", publishers=" + publishers + ", modes=" + modes + ", policies=" + policies);
        }
        for (int s : sizes) {
            if (s < 0 || s > 1 << 20) {
                throw new IllegalArgumentException("sizes must be in [0, 1048576]: size=" + s);
            }
        }
        for (int p : publishers) {
            positive("publishers", p);
        }
        for (int m : restartMib) {
            if (m < 0) {
                throw new IllegalArgumentException("restart-mib must be >= 0: restart-mib=" + m);
            }
        }
        if (replayBatch > 1 << 20 || ackBatch > 1 << 20) {
            throw new IllegalArgumentException("batches must be at most 1048576: replay-batch=" + replayBatch
                    + ", ack-batch=" + ackBatch);
        }
        for (Duration d : List.of(duration, interval, timeout)) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("duration, interval and timeout must be positive: duration="
                        + duration + ", interval=" + interval + ", timeout=" + timeout);
            }
        }
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warmup must be >= 0: warmup=" + warmup);
        }
    }

    private static void positive(String what, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be >= 1: " + what + "=" + value);
        }
    }
}
