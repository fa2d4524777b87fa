package io.ringbus.bench;

import io.ringbus.bench.blocking.BlockingCommand;
import io.ringbus.bench.chart.ChartCommand;
import io.ringbus.bench.network.NetworkCommand;
import io.ringbus.bench.network.SoakCommand;
import io.ringbus.bench.network.SubsCommand;
import io.ringbus.bench.network.TlsCommand;
import io.ringbus.bench.outbox.OutboxCommand;
import io.ringbus.bench.seed.SeedCommand;
import io.ringbus.bench.federation.FederationCommand;
import io.ringbus.bench.hostile.HostileCommand;
import io.ringbus.bench.jetstream.JetStreamCommand;
import io.ringbus.bench.storage.StorageCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code ringbus-bench.jar}: the seed scenario, the blocking scenarios, the network
 * scenario (ringbus-server against nats-server), the outbox scenario (relays on PostgreSQL), the
 * storage scenario (the local store against JetStream's file store), the TLS scenario (ringbus-server
 * against nats-server over TLS), the jetstream scenario (ringbus-server's JetStream API against
 * nats-server's), JMH, and
 * {@code chart}, which draws results files as SVG.
 *
 * <pre>
 * java -jar ringbus-bench.jar seed --rounds 10
 * java -jar ringbus-bench.jar blocking --duration 10s
 * java -jar ringbus-bench.jar network --runs 3
 * java -jar ringbus-bench.jar network --client go --cores 1,2
 * java -jar ringbus-bench.jar subs --counts 10000,100000
 * java -jar ringbus-bench.jar soak --duration 3m
 * java -jar ringbus-bench.jar outbox --only THROUGHPUT
 * java -jar ringbus-bench.jar storage --records 10000000 --restart-mib 100,1024
 * java -jar ringbus-bench.jar tls --json bench-results/tls.json
 * java -jar ringbus-bench.jar jetstream --json bench-results/jetstream.json
 * java -jar ringbus-bench.jar jmh PublishBenchmark -prof gc
 * java -jar ringbus-bench.jar chart bench-results/seed.json
 * </pre>
 */
@Command(name = "ringbus-bench",
        description = "Runs ringbus side by side with its peers and prints the numbers.",
        subcommands = {SeedCommand.class, BlockingCommand.class, NetworkCommand.class, SubsCommand.class, SoakCommand.class,
                OutboxCommand.class, StorageCommand.class, FederationCommand.class, TlsCommand.class,
                JetStreamCommand.class,
                JmhCommand.class, ChartCommand.class, HostileCommand.class})
public final class BenchMain implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    /** Creates the top-level command; picocli fills in the options. */
    public BenchMain() {
    }

    /**
     * Runs the command line and exits with its exit code.
     *
     * @param args a subcommand and its options
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs the command line without exiting, for tests and embedding.
     *
     * @param args a subcommand and its options
     * @return 0 on success, non-zero when a scenario failed or the arguments were wrong
     */
    public static int run(String... args) {
        return new CommandLine(new BenchMain()).execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: seed, blocking, network, subs, soak, outbox, storage, federation, tls, jetstream, hostile, jmh or chart");
    }
}
