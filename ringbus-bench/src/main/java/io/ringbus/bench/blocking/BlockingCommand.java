package io.ringbus.bench.blocking;

import io.ringbus.bench.HumanDurationConverter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.ResultsFile;
import io.ringbus.core.ExecutionMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The {@code blocking} subcommand: blocking handlers under each ringbus execution mode, after the
 * seeds' Vert.x tuning (steady sender) and blocking-I/O (burst) experiments.
 */
@Command(name = "blocking",
        description = "Blocking handlers per execution mode: steady sender (seed 001) and burst (seeds 002/004).")
public final class BlockingCommand implements Callable<Integer> {
    /** Which scenarios to run. */
    enum Part { STEADY, BURST, ALL }

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--only", description = "STEADY, BURST or ALL (default: ${DEFAULT-VALUE})")
    Part only = Part.ALL;

    @Option(names = "--duration", converter = HumanDurationConverter.class,
            description = "steady: window per receiver configuration (default: 10s; the article used 1m)")
    Duration duration = Duration.ofSeconds(10);

    @Option(names = "--send-interval", converter = HumanDurationConverter.class,
            description = "steady: time between sends (default: 10ms)")
    Duration sendInterval = Duration.ofMillis(10);

    @Option(names = "--block", converter = HumanDurationConverter.class,
            description = "steady: receiver's blocking time per message (default: 30ms)")
    Duration block = Duration.ofMillis(30);

    @Option(names = "--ring-size", description = "steady: ring slots and per-subscriber buffer; small so that"
            + " backpressure shows within the window (default: ${DEFAULT-VALUE})")
    int ringSize = 256;

    @Option(names = "--messages", description = "burst: messages per run (default: ${DEFAULT-VALUE})")
    int messages = 1_000;

    @Option(names = "--latencies", split = ",", converter = HumanDurationConverter.class,
            description = "burst: handler blocking times (default: 1s,10ms,1ms)")
    List<Duration> latencies = new ArrayList<>(List.of(Duration.ofSeconds(1), Duration.ofMillis(10), Duration.ofMillis(1)));

    @Option(names = "--worker-pool", description = "burst: worker threads = maxConcurrency (default: ${DEFAULT-VALUE})")
    int workerPool = 64;

    @Option(names = "--virtual-concurrency", description = "burst: maxConcurrency on virtual threads (default: ${DEFAULT-VALUE})")
    int virtualConcurrency = 1_000;

    @Mixin
    ResultsFile json;

    /** Creates the command; picocli fills in the options. */
    public BlockingCommand() {
    }

    @Override
    public Integer call() throws Exception {
        SteadySenderScenario steadyScenario;
        BurstScenario burstScenario;
        List<BurstSetup> setups;
        try {
            steadyScenario = new SteadySenderScenario(duration, sendInterval, block, ringSize);
            burstScenario = new BurstScenario(messages);
            setups = List.of(
                    new BurstSetup("worker x" + workerPool + ", unordered", ExecutionMode.WORKER, workerPool),
                    new BurstSetup("virtual, unordered, max " + virtualConcurrency, ExecutionMode.VIRTUAL,
                            virtualConcurrency));
            for (Duration latency : latencies) {
                if (latency.isNegative() || latency.isZero()) {
                    throw new IllegalArgumentException("latencies must be positive: latency=" + HumanDurationConverter.format(latency));
                }
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        JvmDescription jvm = JvmDescription.current();
        System.out.println(jvm.headline());
        List<SteadyResult> steady = new ArrayList<>();
        List<BurstResult> burst = new ArrayList<>();
        if (only != Part.BURST) {
            for (SteadySetup setup : SteadySetup.values()) {
                SteadyResult r = steadyScenario.run(setup);
                System.out.printf(Locale.ROOT, "  steady %-34s sent %6d received %6d%n", setup.label(), r.sent(), r.received());
                steady.add(r);
            }
        }
        if (only != Part.STEADY) {
            for (Duration latency : latencies) {
                for (BurstSetup setup : setups) {
                    BurstResult r = burstScenario.run(setup, latency);
                    System.out.printf(Locale.ROOT, "  burst  %-34s %6s %10.1f ms%n", setup.label(),
                            HumanDurationConverter.format(latency), r.millis());
                    burst.add(r);
                }
            }
        }
        BlockingReport report = new BlockingReport(jvm, sendInterval, block, ringSize, steady, burst);
        System.out.println();
        if (!steady.isEmpty()) {
            System.out.println(report.steadyTable());
        }
        if (!burst.isEmpty()) {
            System.out.println(report.burstTable());
        }
        json.write(report.document(), System.out);
        return 0;
    }
}
