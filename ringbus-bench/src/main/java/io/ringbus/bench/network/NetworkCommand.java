package io.ringbus.bench.network;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.ResultsFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The {@code network} subcommand: ringbus-server against nats-server over TCP with the same
 * jnats workload, each server a separate process measured alone (throughput, its own CPU time per
 * delivery and peak RSS), then
 * the overload runs (see {@link OverloadRunner}). Exit code 0 when everything verified, 2 when a
 * run lost, duplicated or reordered a message or timed out, 1 when a server could not be run.
 */
@Command(name = "network",
        description = "ringbus-server vs nats-server over TCP with jnats (1->1, 1->4, 1->1 1 KiB, 4->1) and/or the Go"
                + " client (natsload: nats-bench's cases, latency, a cores sweep), then overload runs.")
public final class NetworkCommand implements Callable<Integer> {
    /** Which parts to run. */
    enum Part { COMPARE, OVERLOAD, ALL }

    /** Which client drives the comparison. */
    enum Client { JNATS, GO, BOTH }

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--only", description = "COMPARE, OVERLOAD or ALL (default: ${DEFAULT-VALUE})")
    Part only = Part.ALL;

    @Option(names = "--servers", split = ",", description = "ringbus, nats or both, in run order (default: ringbus,nats)")
    List<String> servers = new ArrayList<>(List.of("ringbus", "nats"));

    @Option(names = "--cases", split = ",", description = "subset of 1x1x16, 1x4x16, 1x1x1024, 4x1x16"
            + " (publishers x subscribers x bytes), in run order (default: all)")
    List<String> caseIds = new ArrayList<>();

    @Option(names = "--messages", description = "messages per run of the 16 B cases (default: ${DEFAULT-VALUE})")
    long messages = 2_000_000;

    @Option(names = "--large-messages", description = "messages per run of the 1 KiB case (default: ${DEFAULT-VALUE})")
    long largeMessages = 500_000;

    @Option(names = "--warmup", description = "warm-up runs per case and server (default: ${DEFAULT-VALUE})")
    int warmup = 1;

    @Option(names = "--runs", description = "measured runs per case and server; the median is reported (default: ${DEFAULT-VALUE})")
    int runs = 3;

    @Option(names = "--timeout", converter = HumanDurationConverter.class,
            description = "longest a run may take before it fails (default: 120s)")
    Duration timeout = Duration.ofSeconds(120);

    @Mixin
    PeerBinaries peers;

    @Option(names = "--ringbus-heap", description = "ringbus-server's -Xmx in the comparison (default: ${DEFAULT-VALUE},"
            + " bin/run's)")
    String ringbusHeap = "2g";

    @Option(names = "--ringbus-jvm-arg", description = "extra JVM option for ringbus-server, repeatable (e.g. JFR)")
    List<String> ringbusJvmArgs = new ArrayList<>();

    @Option(names = "--ringbus-config", description = "ringbus-server --config file for the comparison (default: none)")
    Path ringbusConfig;

    @Option(names = "--overload-messages", description = "overload: messages published (default: ${DEFAULT-VALUE})")
    long overloadMessages = 500_000;

    @Option(names = "--overload-publishers", description = "overload: publisher connections (default: ${DEFAULT-VALUE})")
    int overloadPublishers = 2;

    @Option(names = "--overload-heap", description = "overload: the server JVM's -Xmx (default: ${DEFAULT-VALUE})")
    String overloadHeap = "512m";

    @Option(names = "--slow-factor", description = "overload: how many times slower than the unloaded publish rate"
            + " the slow consumers are (default: ${DEFAULT-VALUE})")
    int slowFactor = 10;

    @Option(names = "--work-dir", description = "where server logs and config files go (default: a new temp directory)")
    Path workDir;

    @Option(names = "--client", description = "comparison client: JNATS (in this JVM), GO (natsload, nats.go, its own"
            + " process) or BOTH (default: ${DEFAULT-VALUE})", converter = ClientConverter.class)
    Client client = Client.JNATS;

    @Option(names = "--cores", split = ",", description = "Go client: cores sweep, the server pinned to CPUs 0..k-1 with"
            + " taskset for each k (e.g. 1,2,4,8), natsload on the others; runs the sweep cases (pairs, 1->N, N->1)")
    List<Integer> cores = new ArrayList<>();

    @Option(names = "--fan", description = "Go client: N in 1->N, N->1 and N pairs (default: ${DEFAULT-VALUE})")
    int fan = 4;

    @Option(names = "--go-cases", split = ",", description = "Go client: subset of the case ids (pub16, 1x1x16, 1xNx16,"
            + " Nx1x16, pairsNx16, the same with 1024, reqrep, latency; sweep: pairs1x16, pairs2x16, ...)")
    List<String> goCaseIds = new ArrayList<>();

    @Option(names = "--go-messages", description = "Go client: messages per run at 16 B (default: ${DEFAULT-VALUE})")
    long goMessages = 1_000_000;

    @Option(names = "--go-large-messages", description = "Go client: messages per run at 1 KiB (default: ${DEFAULT-VALUE})")
    long goLargeMessages = 200_000;

    @Option(names = "--requests", description = "Go client: request/reply round trips per run (default: ${DEFAULT-VALUE})")
    long requests = 20_000;

    @Option(names = "--latency-rate", description = "Go client: one-way latency, messages/s (default: ${DEFAULT-VALUE})")
    int latencyRate = 10_000;

    @Option(names = "--latency-duration", converter = HumanDurationConverter.class,
            description = "Go client: one-way latency, how long (default: 5s)")
    Duration latencyDuration = Duration.ofSeconds(5);

    @Mixin
    ResultsFile json;

    private static List<NetworkCase> select(List<NetworkCase> all, List<String> ids) {
        if (ids.isEmpty()) {
            return all;
        }
        List<NetworkCase> chosen = new ArrayList<>();
        for (String id : ids) {
            NetworkCase match = all.stream().filter(c -> c.id().equals(id)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown case (use "
                            + all.stream().map(NetworkCase::id).toList() + "): case='" + id + "'"));
            chosen.add(match);
        }
        return chosen;
    }

    /** Reads {@code --client} in any case. */
    static final class ClientConverter implements picocli.CommandLine.ITypeConverter<Client> {
        @Override
        public Client convert(String value) {
            return Client.valueOf(value.toUpperCase(Locale.ROOT));
        }
    }

    /** Creates the command; picocli fills in the options. */
    public NetworkCommand() {
    }

    @Override
    public Integer call() throws Exception {
        List<ServerKind> kinds;
        List<NetworkCase> cases;
        JnatsWorkload workload;
        ServerBinaries binaries;
        NatsLoad load = null;
        List<GoCase> goCases = List.of();
        List<CorePlan> plans = List.of(CorePlan.UNPINNED);
        List<String> notes = new ArrayList<>();
        try {
            if (!cores.isEmpty() && client == Client.JNATS) {
                throw new IllegalArgumentException("--cores sweeps the Go client: add --client go (or both): cores=" + cores);
            }
            if (fan < 2 || fan > 64) {
                throw new IllegalArgumentException("fan must be in 2..64: fan=" + fan);
            }
            if (client != Client.JNATS) {
                load = peers.natsload();
                goCases = GoCase.select(cores.isEmpty()
                        ? GoCase.standard(fan, goMessages, goLargeMessages, requests, latencyRate, latencyDuration)
                        : GoCase.sweep(fan, goMessages), goCaseIds);
                if (!cores.isEmpty()) {
                    plans = CorePlan.sweep(cores, Runtime.getRuntime().availableProcessors(), notes);
                    if (plans.isEmpty()) {
                        throw new IllegalArgumentException("no core count fits this machine ("
                                + Runtime.getRuntime().availableProcessors() + " CPUs): cores=" + cores);
                    }
                    if (plans.stream().anyMatch(CorePlan::shared)) {
                        notes.add("natsload shares the server's CPUs where no CPU is left: " + plans.stream()
                                .filter(CorePlan::shared).map(p -> p.cores() + " cores").toList());
                    }
                }
            }
            kinds = ServerKind.inRunOrder(servers);
            cases = select(NetworkCase.standard(messages, largeMessages), caseIds);
            workload = new JnatsWorkload(timeout);
            if (slowFactor < 2 || slowFactor > 1_000) {
                throw new IllegalArgumentException("slow-factor must be in 2..1000: slow-factor=" + slowFactor);
            }
            binaries = peers.servers(kinds);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("ringbus-network-");
        JvmDescription jvm = JvmDescription.current();
        ServerCpu cpu = ServerCpu.ofThisMachine();
        System.out.println(jvm.headline());
        System.out.printf(Locale.ROOT, "network scenario: jnats clients in this JVM, servers as separate processes on"
                        + " 127.0.0.1; %d warm-up + %d measured runs per case and server; logs in %s%n"
                        + "  server cpu: the server process's user + system time (/proc/<pid>/stat, %d ticks/s) over"
                        + " the measured runs, per delivery%n", warmup, runs, dir, cpu.ticksPerSecond());
        ComparisonReport comparison = null;
        GoReport go = null;
        OverloadReport overload = null;
        try {
            if (only != Part.OVERLOAD && client != Client.JNATS) {
                System.out.println("Go client: natsload " + load.binary() + " (nats.go), its own process");
                notes.forEach(n -> System.out.println("  note: " + n));
                GoComparison runner = new GoComparison(binaries, load, warmup, runs, ringbusHeap, ringbusJvmArgs,
                        timeout, dir, System.out, cpu);
                go = new GoReport(warmup, runs, notes, runner.run(kinds, plans, goCases));
                System.out.println();
                System.out.print(go.table());
                System.out.println();
                System.out.print(go.memoryTable());
                String sweep = go.sweepTable();
                if (!sweep.isEmpty()) {
                    System.out.println();
                    System.out.print(sweep);
                }
                notes.forEach(n -> System.out.println("note: " + n));
            }
            if (only != Part.OVERLOAD && client != Client.GO) {
                NetworkComparison runner = new NetworkComparison(binaries, workload, warmup, runs, ringbusHeap,
                        ringbusJvmArgs, ringbusConfig, dir, System.out, cpu);
                comparison = new ComparisonReport(warmup, runs, runner.run(kinds, cases));
                System.out.println();
                System.out.print(comparison.table());
                System.out.println();
                System.out.print(comparison.memoryTable());
            }
            if (only != Part.COMPARE) {
                OverloadRunner runner = new OverloadRunner(binaries, overloadMessages, overloadPublishers,
                        overloadHeap, slowFactor, timeout, dir, System.out);
                overload = runner.run(kinds);
                System.out.println();
                System.out.print(overload.text());
            }
        } catch (NetworkVerificationException e) {
            System.err.println("FAILED: " + e.getMessage());
            return 2;
        } catch (java.io.IOException e) {
            System.err.println("FAILED: " + e.getMessage());
            return 1;
        }
        boolean passed = (comparison == null || comparison.passed()) && (overload == null || overload.passed())
                && (go == null || go.passed());
        if (json.requested()) {
            String clients = switch (client) {
                case JNATS -> "jnats";
                case GO -> "nats.go";
                case BOTH -> "jnats, nats.go";
            };
            NetworkResults results = new NetworkResults(NetworkResults.SCENARIO, jvm.vm(), jvm.cores(), clients,
                    go == null ? null : go.section(), comparison == null ? null : comparison.section(),
                    overload == null ? null : overload.section());
            json.write(results, System.out);
        }
        if (!passed) {
            System.err.println("FAILED: see the FAILED lines above");
        }
        return passed ? 0 : 2;
    }
}
