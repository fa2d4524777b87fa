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
 * The {@code soak} subcommand (minutes; not for CI): ringbus-server forked with a small heap
 * ({@code -Xmx256m}) under natsload's mixed load: four paced publishers (16 B to 1 KiB), two fast
 * subscribers that must get every message in order, a slow nats.go subscriber, a slow socket, a
 * socket that never reads, and a connection every 50 ms that comes and goes. Every second heap
 * used, RSS and {@code /healthz} are sampled. Exit code 0 when {@code /healthz} answered every time
 * and the fast subscribers got everything, 2 otherwise, 1 when the server could not run.
 */
@Command(name = "soak", description = "ringbus-server at -Xmx256m under mixed load (slow, stuck and fast subscribers,"
        + " connection churn) for --duration; samples heap, RSS and /healthz every second. Not for CI.")
public final class SoakCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--duration", converter = HumanDurationConverter.class, description = "how long the load runs (default: 3m)")
    Duration duration = Duration.ofMinutes(3);

    @Option(names = "--rate", description = "messages per second of each of the 4 publishers (default: ${DEFAULT-VALUE})")
    int rate = 5_000;

    @Option(names = "--heap", description = "ringbus-server's -Xmx (default: ${DEFAULT-VALUE})")
    String heap = "256m";

    @Option(names = "--servers", split = ",", description = "ringbus and/or nats, in run order (default: ringbus)")
    List<String> servers = new ArrayList<>(List.of("ringbus"));

    @Mixin
    PeerBinaries peers;

    @Option(names = "--work-dir", description = "where logs go (default: a new temp directory)")
    Path workDir;

    @Mixin
    ResultsFile json;

    /** Creates the command; picocli fills in the options. */
    public SoakCommand() {
    }

    @Override
    public Integer call() throws Exception {
        List<ServerKind> kinds;
        ServerBinaries binaries;
        NatsLoad load;
        try {
            kinds = ServerKind.inRunOrder(servers);
            if (duration.toSeconds() < 1 || rate < 1) {
                throw new IllegalArgumentException("duration must be >= 1s and rate >= 1: duration=" + duration + ", rate=" + rate);
            }
            binaries = peers.servers(kinds);
            load = peers.natsload();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("ringbus-soak-");
        JvmDescription jvm = JvmDescription.current();
        System.out.println(jvm.headline());
        System.out.printf(Locale.ROOT, "soak: %s of natsload mixed load, 4 publishers x %,d msg/s; logs in %s%n",
                duration, rate, dir);
        List<SoakReport> reports = new ArrayList<>();
        for (ServerKind kind : kinds) {
            int port = EphemeralPorts.pick();
            int monitorPort = EphemeralPorts.pick();
            List<String> command = kind.command(binaries, port, monitorPort, heap, List.of(), null);
            try (ServerProcess server = ServerProcess.start(kind, command, port, dir, System.out)) {
                NatsLoadResult.Soak result = null;
                String failure = null;
                List<SoakSampler.Sample> samples;
                try (SoakSampler sampler = new SoakSampler(monitorPort, server.pid(), kind == ServerKind.RINGBUS)) {
                    try {
                        result = load.run(NatsLoadResult.Soak.class, null, List.of("-url", server.url(), "-mode", "soak", "-subject", "soak",
                                        "-duration", duration.toMillis() + "ms", "-rate", Integer.toString(rate)),
                                duration.plusSeconds(120), dir.resolve("natsload-" + kind.label() + ".log"));
                    } catch (IOException e) {
                        failure = e.getMessage();
                    }
                    sampler.stop();
                    samples = sampler.samples();
                }
                int exit = server.stop();
                SoakReport report = new SoakReport(kind, command, samples, result, failure, exit);
                reports.add(report);
                System.out.println();
                System.out.print(report.table());
            }
        }
        json.write(new SoakResults(SoakResults.SCENARIO, jvm.vm(), jvm.cores(), duration.toSeconds(), heap,
                reports.stream().map(SoakReport::section).toList()), System.out);
        boolean passed = reports.stream().allMatch(SoakReport::passed);
        if (!passed) {
            System.err.println("FAILED: see the result lines above");
        }
        return passed ? 0 : 2;
    }
}
