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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The {@code subs} subcommand: how a server copes with many subscriptions. natsload (nats.go)
 * adds 10k, 100k and 1M subscriptions over 100 connections (subscribe, then flush: a PING the
 * server answers after it has every SUB), reads the server's RSS from /proc, removes them, then
 * measures 1 -&gt; 1 routing quietly and while other connections subscribe and unsubscribe. Each
 * step has a time limit; a step past it is reported as timed out and the larger ones skipped.
 * Exit code 0 when every step passed, 2 when one failed or timed out, 1 when a server could not run.
 */
@Command(name = "subs", description = "Time and server RSS to add and remove 10k/100k/1M subscriptions, routing while"
        + " subscriptions churn; ringbus-server and nats-server in one run (natsload, nats.go).")
public final class SubsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--servers", split = ",", description = "ringbus, nats or both, in run order (default: ringbus,nats)")
    List<String> servers = new ArrayList<>(List.of("ringbus", "nats"));

    @Option(names = "--counts", split = ",", description = "subscription counts (default: 10000,100000,1000000)")
    List<Integer> counts = new ArrayList<>(List.of(10_000, 100_000, 1_000_000));

    @Option(names = "--conns", description = "connections holding them (default: ${DEFAULT-VALUE})")
    int conns = 100;

    @Option(names = "--step-timeout", converter = HumanDurationConverter.class,
            description = "longest adding (or removing) one count may take (default: 60s)")
    Duration stepTimeout = Duration.ofSeconds(60);

    @Option(names = "--route-duration", converter = HumanDurationConverter.class,
            description = "routing measured this long quietly, then as long while churning (default: 3s)")
    Duration routeDuration = Duration.ofSeconds(3);

    @Option(names = "--churn-conns", description = "connections subscribing and unsubscribing while routing (default: ${DEFAULT-VALUE})")
    int churnConns = 4;

    @Option(names = "--ringbus-heap", description = "ringbus-server's -Xmx (default: ${DEFAULT-VALUE})")
    String ringbusHeap = "2g";

    @Option(names = "--ringbus-subscription-memory", description = "ringbus-server's max_subscription_memory"
            + " (default: ${DEFAULT-VALUE})")
    String ringbusSubscriptionMemory = "1536m";

    @Option(names = "--ringbus-jvm-arg", description = "extra JVM option for ringbus-server, repeatable (e.g. -Xlog:gc)")
    List<String> ringbusJvmArgs = new ArrayList<>();

    @Mixin
    PeerBinaries peers;

    @Option(names = "--work-dir", description = "where logs go (default: a new temp directory)")
    Path workDir;

    @Mixin
    ResultsFile json;

    /** Creates the command; picocli fills in the options. */
    public SubsCommand() {
    }

    @Override
    public Integer call() throws Exception {
        List<ServerKind> kinds;
        ServerBinaries binaries;
        NatsLoad load;
        try {
            kinds = ServerKind.inRunOrder(servers);
            if (conns < 1 || conns > 10_000) {
                throw new IllegalArgumentException("conns must be in 1..10000: conns=" + conns);
            }
            for (int c : counts) {
                if (c < conns) {
                    throw new IllegalArgumentException("every count must be >= conns (" + conns + "): count=" + c);
                }
            }
            binaries = peers.servers(kinds);
            load = peers.natsload();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("ringbus-subs-");
        JvmDescription jvm = JvmDescription.current();
        System.out.println(jvm.headline());
        System.out.printf(Locale.ROOT, "subs scenario: natsload (nats.go) adds and removes %s subscriptions over %d"
                + " connections, %s limit per step; logs in %s%n", counts, conns, stepTimeout, dir);
        List<String> args = List.of("-mode", "subs", "-counts", String.join(",", counts.stream().map(String::valueOf).toList()),
                "-conns", Integer.toString(conns), "-step-timeout", stepTimeout.toMillis() + "ms",
                "-route-duration", routeDuration.toMillis() + "ms", "-churn-conns", Integer.toString(churnConns),
                "-subject", "subs");
        Duration limit = stepTimeout.plusSeconds(5).multipliedBy(2L * counts.size()).plus(routeDuration.multipliedBy(2))
                .plusSeconds(180);
        List<SubsReport.ServerSubs> results = new ArrayList<>();
        for (ServerKind kind : kinds) {
            int port = EphemeralPorts.pick();
            Path config = null;
            if (kind == ServerKind.RINGBUS) {
                // A million subscriptions (3 tokens each, about 1.2 KB charged) need more than the
                // default quarter of the heap: the limit is explicit, as a user would set it.
                config = Files.writeString(dir.resolve("ringbus-subs.properties"),
                        "max_subscription_memory=" + ringbusSubscriptionMemory + "\n");
            }
            List<String> command = kind.command(binaries, port, ringbusHeap, ringbusJvmArgs, config);
            try (ServerProcess server = ServerProcess.start(kind, command, port, dir, System.out)) {
                List<String> withServer = new ArrayList<>(List.of("-url", server.url(), "-pid", Long.toString(server.pid())));
                withServer.addAll(args);
                NatsLoadResult.Subs result = null;
                String failure = null;
                try {
                    result = load.run(NatsLoadResult.Subs.class, null, withServer, limit, dir.resolve("natsload-" + kind.label() + ".log"));
                } catch (IOException e) {
                    failure = e.getMessage();
                    System.out.println("  " + kind.label() + " FAILED: " + failure);
                }
                results.add(new SubsReport.ServerSubs(kind, command, result, failure, server.peakRssKiB()));
                server.stop();
            }
        }
        SubsReport report = new SubsReport(conns, results);
        System.out.println();
        System.out.print(report.table());
        System.out.println();
        System.out.print(report.routeTable());
        json.write(report.document(jvm), System.out);
        if (!report.passed()) {
            System.err.println("FAILED: see the FAILED and timed-out lines above");
            return 2;
        }
        return 0;
    }
}
