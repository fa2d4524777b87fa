package io.ringbus.bench.hostile;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.network.PeerBinaries;
import io.ringbus.bench.network.ServerBinaries;
import io.ringbus.bench.network.ServerKind;
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
import java.util.concurrent.Callable;

/**
 * The {@code hostile} subcommand, issue 25's standing harness: every attack of {@link Attacks}
 * against a fresh ringbus-server with a small heap (and, where it has the feature, nats-server
 * with the same users and bytes), while a healthy client's round trip, a valid bcrypt login from
 * another source and an unauthenticated {@code /healthz} are measured. Exit code 0 when every
 * server survived every attack and answered every healthy ask (latency goals are reported, not
 * enforced), 2 when one did not, 1 when a run could not be set up.
 */
@Command(name = "hostile", description = "Hostile and careless clients against ringbus-server at a small heap"
        + " (and nats-server given the same bytes): does it stay up, and what do healthy clients see meanwhile?")
public final class HostileCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--servers", split = ",", description = "ringbus, nats or both, in run order (default: ringbus,nats)")
    List<String> servers = new ArrayList<>(List.of("ringbus", "nats"));

    @Option(names = "--only", split = ",", description = "attack names (default: all; --list shows them)")
    List<String> only = new ArrayList<>();

    @Option(names = "--list", description = "list the attacks and exit")
    boolean list;

    @Option(names = "--duration", converter = HumanDurationConverter.class,
            description = "how long each attack runs (default: 10s)")
    Duration duration = Duration.ofSeconds(10);

    @Option(names = "--ringbus-heap", description = "ringbus-server's -Xmx (default: ${DEFAULT-VALUE})")
    String heap = "128m";

    @Mixin
    PeerBinaries peers;

    @Option(names = "--work-dir", description = "logs, configuration files and stores (default: a new temp directory)")
    Path workDir;

    /** Creates the command; picocli fills in the options. */
    public HostileCommand() {
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        List<Attack> attacks;
        List<ServerKind> kinds;
        ServerBinaries binaries;
        try {
            attacks = Attacks.named(only);
            kinds = ServerKind.inRunOrder(servers);
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("duration must be positive: duration=" + duration);
            }
            if (list) {
                for (Attack attack : attacks) {
                    out.printf("%-20s %s%s%n", attack.name(), attack.description(), attack.natsToo() ? "" : " (ringbus only)");
                }
                return 0;
            }
            binaries = peers.servers(kinds);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("ringbus-hostile-");
        out.println(JvmDescription.current().headline());
        out.printf("hostile scenario: %d attacks of %s each, ringbus-server -Xmx%s; logs in %s%n", attacks.size(),
                HumanDurationConverter.format(duration), heap, dir);
        HostileRun run = new HostileRun(binaries, HostileConfig.create(), heap, duration, dir, out);
        List<HostileResult> results = new ArrayList<>();
        try {
            for (Attack attack : attacks) {
                for (ServerKind kind : kinds) {
                    if (kind == ServerKind.RINGBUS || attack.natsToo()) {
                        results.add(run.run(attack, kind));
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("FAILED: a server could not run: " + e.getMessage());
            return 1;
        }
        HostileReport report = new HostileReport(results);
        out.println();
        out.printf("goals: round trip and /healthz p99 <= %.0f ms, a valid login within %.0f ms (ok / slow)%n",
                HostileResult.GOAL_P99_MILLIS, HostileResult.GOAL_LOGIN_MILLIS);
        out.print(report.text());
        if (!report.survived()) {
            System.err.println("FAILED: a server fell over or left a healthy client unanswered (see above)");
            return 2;
        }
        return 0;
    }
}
