package io.ringbus.bench.seed;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.ResultsFile;
import io.ringbus.core.WaitStrategy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The {@code seed} subcommand: the seed article's benchmark, run against every contender with
 * counted, order-checked deliveries. Exit code 0 when every round verified, 2 when one did not.
 */
@Command(name = "seed",
        description = "Seed article workload (4 producers x 250,000 events, 5 subjects x 4 subscribers) per contender.")
public final class SeedCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--rounds", description = "measured rounds per contender (default: ${DEFAULT-VALUE})")
    int rounds = 10;

    @Option(names = "--warmup", description = "warm-up rounds per contender (default: ${DEFAULT-VALUE})")
    int warmup = 3;

    @Option(names = "--wait-strategy", description = "BLOCKING, SLEEPING, YIELDING or BUSY_SPIN (default: ${DEFAULT-VALUE})")
    WaitStrategy waitStrategy = WaitStrategy.YIELDING;

    @Option(names = "--contenders", split = ",", description = "comma-separated subset, in run order (default: all)")
    List<String> contenders = new ArrayList<>();

    @Mixin
    ResultsFile json;

    @Option(names = "--producers", description = "producer threads (default: ${DEFAULT-VALUE})")
    int producers = SeedWorkload.SEED.producers();

    @Option(names = "--events", description = "events per producer (default: ${DEFAULT-VALUE})")
    int events = SeedWorkload.SEED.eventsPerProducer();

    @Option(names = "--subjects", description = "subjects, the article's event types (default: ${DEFAULT-VALUE})")
    int subjects = SeedWorkload.SEED.subjects();

    @Option(names = "--subscribers", description = "subscribers per subject (default: ${DEFAULT-VALUE})")
    int subscribers = SeedWorkload.SEED.subscribersPerSubject();

    @Option(names = "--timeout", converter = HumanDurationConverter.class,
            description = "longest a round may take before it fails (default: 120s)")
    Duration timeout = Duration.ofSeconds(120);

    /** Creates the command; picocli fills in the options. */
    public SeedCommand() {
    }

    @Override
    public Integer call() throws Exception {
        SeedWorkload workload;
        List<ContenderKind> kinds = new ArrayList<>();
        SeedRunner runner;
        try {
            workload = new SeedWorkload(producers, events, subjects, subscribers);
            if (contenders.isEmpty()) {
                kinds.addAll(List.of(ContenderKind.values()));
            } else {
                for (String label : contenders) {
                    kinds.add(ContenderKind.byLabel(label));
                }
            }
            runner = new SeedRunner(workload, waitStrategy, warmup, rounds, timeout, System.out);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        SeedReport header = new SeedReport(JvmDescription.current(), workload, waitStrategy, warmup, rounds, List.of());
        System.out.println(header.header());
        List<ContenderResult> results;
        try {
            results = runner.run(kinds);
        } catch (SeedVerificationException e) {
            System.err.println("FAILED: " + e.getMessage());
            return 2;
        }
        SeedReport report = new SeedReport(header.jvm(), workload, waitStrategy, warmup, rounds, results);
        System.out.println();
        System.out.print(report.table());
        json.write(report.document(), System.out);
        return 0;
    }
}
