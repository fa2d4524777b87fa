package io.ringbus.bench.jetstream;

import io.ringbus.bench.GoProgram;
import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.ResultsFile;
import io.ringbus.bench.network.ServerBinaries;
import io.ringbus.bench.network.ServerKind;
import io.ringbus.bench.network.ServerCpu;
import io.ringbus.bench.storage.FsyncProbe;
import io.ringbus.bench.storage.JetStreamServer;
import io.ringbus.bench.storage.StorageResults;
import io.ringbus.core.FsyncPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The {@code jetstream} subcommand, issue 26's benchmark: ringbus-server with JetStream (one fsync
 * policy at a time) against nats-server 2.9 {@code -js} (file store, its default sync), both as
 * child processes on 127.0.0.1 with their stores in scratch directories on the same disk, driven
 * by the same nats.go program (jsbench) over loopback; the servers alternate within each round and
 * each row is the median over the rounds. Beside each rate: the server's own CPU time per message.
 * Exit code 0 when every case was measured on every server (goals met or not), 2 when one failed,
 * 1 when the run could not be set up.
 */
@Command(name = "jetstream",
        description = "ringbus-server's JetStream API against nats-server 2.9 -js over loopback (nats.go): async and"
                + " sync publish, pull + ack, push and ordered replay, KV put and get; rates, ratios and each server's"
                + " CPU time per message, under ringbus --fsync ALWAYS, INTERVAL, OS.")
public final class JetStreamCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--only", split = ",", description = "cases to run, among async-128, async-1k, async-128-8pubs, sync-128,"
            + " pull-ack,"
            + " push-replay, ordered-replay, kv-put, kv-get (default: all)")
    List<String> only = new ArrayList<>();

    @Option(names = "--policies", split = ",", description = "ringbus-server's --fsync policies, among ALWAYS, INTERVAL,"
            + " OS (default: all)")
    List<FsyncPolicy> policies = new ArrayList<>(List.of(FsyncPolicy.ALWAYS, FsyncPolicy.INTERVAL, FsyncPolicy.OS));

    @Option(names = "--rounds", description = "rounds, the servers alternating in each; the median is reported"
            + " (default: ${DEFAULT-VALUE})")
    int rounds = 3;

    @Option(names = "--duration", converter = HumanDurationConverter.class,
            description = "publish and KV cases: measured time (default: 2s)")
    Duration duration = Duration.ofSeconds(2);

    @Option(names = "--warmup", converter = HumanDurationConverter.class,
            description = "publish and KV cases: unmeasured time before it (default: 500ms)")
    Duration warmup = Duration.ofMillis(500);

    @Option(names = "--warm-server", converter = HumanDurationConverter.class,
            description = "async publishing into a stream of its own after each server start, before the cases,"
                    + " then what it stored read back once by a pull, a push and an ordered consumer (default: 1s;"
                    + " 0 for no warm-up)")
    Duration warmServer = Duration.ofSeconds(1);

    @Option(names = "--window", description = "async publish: most PubAcks outstanding (default: ${DEFAULT-VALUE})")
    int window = 1_000;

    @Option(names = "--replay-msgs", description = "read cases: 128 B messages filled, then read back by each"
            + " (default: ${DEFAULT-VALUE}; issue 26 asks 1000000)")
    long replayMessages = 100_000;

    @Option(names = "--ack-batch", description = "pull case: messages per fetch (default: ${DEFAULT-VALUE})")
    int ackBatch = 100;

    @Option(names = "--kv-keys", description = "KV cases: distinct keys (default: ${DEFAULT-VALUE})")
    int kvKeys = 1_000;

    @Option(names = "--fsyncs", description = "disk: 128 B writes each forced (default: ${DEFAULT-VALUE})")
    int fsyncs = 2_000;

    @Option(names = "--dir", description = "where the stores are written (default: the system's temporary directory)")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"));

    @Option(names = "--server-jar", description = "ringbus-server.jar (default: ringbus-jetstream/target/)")
    Path serverJar;

    @Option(names = "--server-from-classpath", description = "start ringbus-server from this JVM's class path (tests)")
    boolean serverFromClasspath;

    @Option(names = "--ringbus-jvm-arg", description = "extra JVM option for ringbus-server, repeatable (e.g."
            + " -XX:StartFlightRecording=filename=rb.jfr,settings=profile)")
    List<String> ringbusJvmArgs = new ArrayList<>();

    @Option(names = "--nats-server", description = "the nats-server binary (default: on PATH or /usr/sbin)")
    Path natsServer;

    @Option(names = "--jsbench", description = "a jsbench binary already built (default: built now from"
            + " ringbus-bench/src/main/go/jsbench with Debian's Go and nats.go)")
    Path jsbench;

    @Option(names = "--timeout", converter = HumanDurationConverter.class,
            description = "longest one step may take (default: 300s)")
    Duration timeout = Duration.ofSeconds(300);

    @Mixin
    ResultsFile json;

    /** Creates the command; picocli fills in the options. */
    public JetStreamCommand() {
    }

    @Override
    public Integer call() throws Exception {
        List<JsCase> cases;
        try {
            cases = cases();
            validate();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        JvmDescription jvm = JvmDescription.current();
        System.out.println(jvm.headline());
        String kernel = System.getProperty("os.name") + " " + System.getProperty("os.version");
        Files.createDirectories(dir);
        String fileStore = Files.getFileStore(dir).name() + " (" + Files.getFileStore(dir).type() + ")";
        Path nats = JetStreamServer.locate(natsServer);
        if (nats == null) {
            System.err.println("FAILED: nats-server not found" + (natsServer != null ? " at " + natsServer
                    : " on the PATH or in /usr/sbin") + ": bin/bench-deps installs it");
            return 1;
        }
        Path jar;
        try {
            jar = serverFromClasspath ? null
                    : ServerBinaries.locate(Set.of(ServerKind.RINGBUS), serverJar, null).ringbusJar();
        } catch (IllegalArgumentException e) {
            System.err.println("FAILED: " + e.getMessage() + " (or --server-from-classpath)");
            return 1;
        }
        JetStreamRun run = new JetStreamRun(new Contender.Binaries(nats, jar, ringbusJvmArgs), settings(), ServerCpu.ofThisMachine(),
                System.out);
        JetStreamResults.Machine machine = new JetStreamResults.Machine(kernel, dir.toAbsolutePath().toString(),
                fileStore, JetStreamServer.version(nats), GoProgram.natsGoVersion(),
                jar != null ? jar.toString() : "this JVM's class path", Contender.NATS_SYNC, run.cpu().ticksPerSecond());
        System.out.printf(Locale.ROOT, "jetstream scenario: %s, stores under %s on %s; %s, nats.go %s; ringbus-server"
                + " from %s%n  %s%n", kernel, dir.toAbsolutePath(), fileStore, machine.natsServer(), machine.natsGo(),
                machine.ringbusServer(), Contender.NATS_SYNC);
        Path work = Files.createTempDirectory(dir, "ringbus-bench-jetstream-");
        try {
            Path program;
            try {
                program = GoProgram.build("jsbench", jsbench, work);
            } catch (IllegalStateException e) {
                System.err.println("FAILED: jsbench cannot be built: " + e.getMessage());
                return 1;
            }
            StorageResults.Fsync before = probe(work, "before the rounds");
            List<Contender> contenders = contenders();
            List<Sample> samples = run.rounds(program, work, contenders, cases, rounds);
            StorageResults.Fsync after = probe(work, "after them");
            // Other work on the machine slows the probe: the faster one is the disk's own rate.
            StorageResults.Fsync fsync = before.perSecond() >= after.perSecond() ? before : after;
            JetStreamReport report = new JetStreamReport(cases, contenders, samples, fsync.perSecond());
            System.out.println();
            System.out.printf(Locale.ROOT, "median of %d rounds. cpu: user + system time of the server's process over"
                    + " the measured step, per operation%n(jsbench, the load generator, shares the %d cores). met: the"
                    + " rate goal and cpu <= nats-server's. disk: %,.0f fsyncs/s (the faster probe)%n", rounds,
                    jvm.cores(), fsync.perSecond());
            System.out.print(report.text());
            if (json.requested()) {
                json.write(new JetStreamResults(JetStreamResults.SCENARIO, jvm.vm(), jvm.cores(), machine,
                        new JetStreamResults.Settings(rounds, duration.toNanos() / 1e9, warmup.toNanos() / 1e9, window,
                                replayMessages, ackBatch, kvKeys, policies.stream().map(p -> p.name()
                                .toLowerCase(Locale.ROOT)).toList(), "jsbench (nats.go " + machine.natsGo()
                                + "), one connection per step, same machine"),
                        fsync, report.rows()), System.out);
            }
            if (!report.allMeasured()) {
                System.err.println("FAILED: some cases did not run, see the FAILED lines above");
                return 2;
            }
            return 0;
        } finally {
            JetStreamRun.deleteTree(work);
        }
    }

    private StorageResults.Fsync probe(Path work, String when) throws IOException {
        StorageResults.Fsync fsync = FsyncProbe.measure(work, fsyncs);
        System.out.printf(Locale.ROOT, "  disk %s: %,.0f fsyncs/s (p50 %.0f us, p99 %.0f us)%n", when,
                fsync.perSecond(), fsync.p50Micros(), fsync.p99Micros());
        return fsync;
    }

    private List<JsCase> cases() {
        if (only.isEmpty()) {
            return List.of(JsCase.values());
        }
        List<JsCase> picked = new ArrayList<>();
        for (String name : only) {
            JsCase c = JsCase.byName(name);
            if (!picked.contains(c)) {
                picked.add(c);
            }
        }
        picked.sort(null);
        return picked;
    }

    private void validate() {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be >= 1: rounds=" + rounds);
        }
        if (window < 1 || ackBatch < 1 || kvKeys < 1 || replayMessages < 1 || fsyncs < 1) {
            throw new IllegalArgumentException("--window, --ack-batch, --kv-keys, --replay-msgs and --fsyncs must be"
                    + " >= 1: window=" + window + ", ack-batch=" + ackBatch + ", kv-keys=" + kvKeys + ", replay-msgs="
                    + replayMessages + ", fsyncs=" + fsyncs);
        }
        if (duration.isNegative() || duration.isZero() || warmup.isNegative() || warmServer.isNegative()) {
            throw new IllegalArgumentException("--duration must be positive, --warmup and --warm-server not negative:"
                    + " duration=" + duration + ", warmup=" + warmup + ", warm-server=" + warmServer);
        }
        if (policies.isEmpty()) {
            throw new IllegalArgumentException("--policies needs at least one policy: policies=" + policies);
        }
    }

    private JsSettings settings() {
        return new JsSettings(duration, warmup, warmServer, window, replayMessages, ackBatch, kvKeys, timeout);
    }

    private List<Contender> contenders() {
        List<Contender> all = new ArrayList<>();
        all.add(Contender.nats());
        for (FsyncPolicy p : policies) {
            Contender c = Contender.ringbus(p);
            if (!all.contains(c)) {
                all.add(c);
            }
        }
        return all;
    }
}
