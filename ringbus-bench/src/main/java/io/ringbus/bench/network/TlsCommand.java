package io.ringbus.bench.network;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.ResultsFile;
import io.ringbus.bench.storage.JetStreamServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
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
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The {@code tls} subcommand, issue 12's benchmark: ringbus-server against nats-server over TLS,
 * both serving the same throwaway certificate (made with {@code openssl} for this run), driven by
 * natsload (nats.go, trusting the throwaway CA): 1 -&gt; 1 at 16 B and 1 KiB, 1 -&gt; 4 at 16 B
 * (deliveries per second) and connection set-up (connections per second, each opened until the
 * server answered its first PING, then closed), one at a time and several at a time. The same
 * cases in plaintext give the context. Medians of the measured runs; ratios ringbus-server over
 * nats-server from the same run. Exit code 0 when every run verified (goal met or not), 2 when
 * one failed, 1 when the run could not be set up.
 */
@Command(name = "tls", description = "ringbus-server vs nats-server over TLS with the same certificate (natsload,"
        + " nats.go): 1->1 16 B and 1 KiB, 1->4 16 B, connection set-up rate; plaintext for context.")
public final class TlsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--servers", split = ",", description = "ringbus, nats or both, in run order (default: ringbus,nats)")
    List<String> servers = new ArrayList<>(List.of("ringbus", "nats"));

    @Option(names = "--runs", description = "measured runs per case and server; the median is reported"
            + " (default: ${DEFAULT-VALUE})")
    int runs = 3;

    @Option(names = "--warmup", description = "unmeasured runs per case and server first (default: ${DEFAULT-VALUE})")
    int warmup = 2;

    @Option(names = "--messages", description = "messages per run at 16 B (default: ${DEFAULT-VALUE})")
    long messages = 500_000;

    @Option(names = "--kib-messages", description = "messages per run at 1 KiB (default: ${DEFAULT-VALUE})")
    long kibMessages = 100_000;

    @Option(names = "--fan", description = "N in 1->N (default: ${DEFAULT-VALUE})")
    int fan = 4;

    @Option(names = "--connects", description = "connections per connection run (default: ${DEFAULT-VALUE})")
    int connects = 1_000;

    @Option(names = "--warm-connects", description = "unmeasured connections at the start of each connection run"
            + " (default: ${DEFAULT-VALUE})")
    int warmConnects = 100;

    @Option(names = "--parallel", split = ",", description = "connection cases: connections opened at a time"
            + " (default: 1,4)")
    List<Integer> parallel = new ArrayList<>(List.of(1, 4));

    @Option(names = "--no-plaintext", description = "TLS only: skip the plaintext runs")
    boolean noPlaintext;

    @Option(names = "--tls-provider", description = "ringbus-server's tls.provider: auto, openssl or jdk"
            + " (default: ${DEFAULT-VALUE})")
    String tlsProvider = "auto";

    @Option(names = "--ringbus-heap", description = "ringbus-server's -Xmx (default: ${DEFAULT-VALUE})")
    String ringbusHeap = "1g";

    @Option(names = "--timeout", converter = HumanDurationConverter.class,
            description = "longest one run may take (default: 120s)")
    Duration timeout = Duration.ofSeconds(120);

    @Mixin
    PeerBinaries peers;

    @Option(names = "--work-dir", description = "where certificates, configuration files and logs go"
            + " (default: a new temp directory)")
    Path workDir;

    @Mixin
    ResultsFile json;

    /** Creates the command; picocli fills in the options. */
    public TlsCommand() {
    }

    @Override
    public Integer call() throws Exception {
        List<ServerKind> kinds;
        ServerBinaries binaries;
        NatsLoad load;
        List<TlsCase> cases;
        try {
            kinds = ServerKind.inRunOrder(servers);
            validate();
            cases = TlsCase.standard(fan, messages, kibMessages, connects, warmConnects, parallel);
            binaries = peers.servers(kinds);
            load = peers.natsload();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintStream out = System.out;
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("ringbus-tls-");
        JvmDescription jvm = JvmDescription.current();
        String kernel = System.getProperty("os.name") + " " + System.getProperty("os.version");
        String natsVersion = binaries.natsServer() == null ? null : JetStreamServer.version(binaries.natsServer());
        out.println(jvm.headline());
        out.printf(Locale.ROOT, "tls scenario: %s; %s; natsload (nats.go) with -tls-ca; logs in %s%n",
                natsVersion == null ? "ringbus-server only" : natsVersion, ThrowawayCertificates.DESCRIPTION, dir);
        ThrowawayCertificates certificates;
        try {
            certificates = ThrowawayCertificates.create(dir);
        } catch (IOException e) {
            System.err.println("FAILED: " + e.getMessage());
            return 1;
        }
        TlsComparison comparison = new TlsComparison(binaries, load, certificates, tlsProvider, ringbusHeap, warmup,
                runs, timeout, dir, out, ServerCpu.ofThisMachine());
        List<TlsResults.Row> rows = new ArrayList<>();
        try {
            rows.addAll(comparison.run(kinds, true, cases));
            if (!noPlaintext) {
                rows.addAll(comparison.run(kinds, false, cases));
            }
        } catch (IOException e) {
            System.err.println("FAILED: a server could not run: " + e.getMessage());
            return 1;
        }
        TlsReport report = new TlsReport(rows);
        out.println();
        out.printf(Locale.ROOT, "ringbus-server TLS provider: %s; median of %d runs%n", comparison.ringbusProvider(),
                runs);
        out.print(report.text());
        if (json.requested()) {
            TlsResults head = new TlsResults(TlsResults.SCENARIO, jvm.vm(), jvm.cores(),
                    new TlsResults.Machine(kernel, natsVersion, comparison.ringbusProvider(),
                            ThrowawayCertificates.DESCRIPTION),
                    new TlsResults.Settings(warmup, runs, messages, kibMessages, connects, warmConnects, ringbusHeap,
                            tlsProvider),
                    List.of(), null);
            json.write(report.document(head), out);
        }
        if (!report.passed()) {
            System.err.println("FAILED: see the FAILED lines above");
            return 2;
        }
        return 0;
    }

    private void validate() {
        if (runs < 1 || warmup < 0) {
            throw new IllegalArgumentException("runs must be >= 1 and warmup >= 0: runs=" + runs + ", warmup=" + warmup);
        }
        if (messages < 1 || kibMessages < 1 || connects < 1 || warmConnects < 0) {
            throw new IllegalArgumentException("messages, kib-messages and connects must be >= 1, warm-connects >= 0:"
                    + " messages=" + messages + ", kib-messages=" + kibMessages + ", connects=" + connects
                    + ", warm-connects=" + warmConnects);
        }
        if (fan < 2) {
            throw new IllegalArgumentException("fan must be >= 2: fan=" + fan);
        }
        for (int p : parallel) {
            if (p < 1 || p > 256) {
                throw new IllegalArgumentException("parallel must be in 1..256: parallel=" + p);
            }
        }
        if (!Set.of("auto", "openssl", "jdk").contains(tlsProvider)) {
            throw new IllegalArgumentException("tls-provider must be auto, openssl or jdk: tls-provider=" + tlsProvider);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: timeout=" + timeout);
        }
    }
}
