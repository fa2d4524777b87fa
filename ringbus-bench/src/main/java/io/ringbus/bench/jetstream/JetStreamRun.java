package io.ringbus.bench.jetstream;

import io.ringbus.bench.network.EphemeralPorts;
import io.ringbus.bench.network.ServerCpu;
import io.ringbus.bench.network.ServerProcess;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The rounds of the jetstream scenario: in each, every server in turn (the order reversed in every
 * other round, so neither always goes first) is started on an empty store of its own, warmed up,
 * run through the cases by {@link CaseRunner}, killed, and its store deleted. Not thread-safe.
 */
final class JetStreamRun {
    private static final Duration STARTUP = Duration.ofSeconds(60);

    private final Contender.Binaries binaries;
    private final JsSettings settings;
    private final ServerCpu cpu;
    private final PrintStream out;

    /**
     * @param binaries the servers
     * @param settings the workload
     * @param cpu      reads the servers' CPU time
     * @param out      where progress goes
     */
    JetStreamRun(Contender.Binaries binaries, JsSettings settings, ServerCpu cpu, PrintStream out) {
        this.binaries = binaries;
        this.settings = settings;
        this.cpu = cpu;
        this.out = out;
    }

    /** @return how the servers' CPU time is read */
    ServerCpu cpu() {
        return cpu;
    }

    /**
     * @param jsbench    the load program
     * @param work       where the stores and logs go
     * @param contenders the servers, nats-server first
     * @param cases      the cases, in order
     * @param rounds     how many
     * @return every sample, failed ones included
     */
    List<Sample> rounds(Path jsbench, Path work, List<Contender> contenders, List<JsCase> cases, int rounds)
            throws IOException, InterruptedException {
        CaseRunner runner = new CaseRunner(jsbench, settings, cpu, work.resolve("jsbench.log"), out);
        List<Sample> samples = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            List<Contender> order = new ArrayList<>(contenders);
            if (round % 2 == 0) {
                order = order.reversed();
            }
            for (Contender c : order) {
                samples.addAll(runOne(runner, work, c, round, cases));
            }
        }
        return samples;
    }

    private List<Sample> runOne(CaseRunner runner, Path work, Contender c, int round, List<JsCase> cases)
            throws IOException, InterruptedException {
        Path store = Files.createTempDirectory(work, c.server() + "-" + c.policyName() + "-");
        int port = EphemeralPorts.pick();
        List<String> command = c.command(binaries, port, EphemeralPorts.pick(), store);
        Path log = work.resolve(c.server() + "-" + c.policyName() + "-round" + round + ".log");
        if (round == 1) {
            String shown = String.join(" ", command).replace(System.getProperty("java.class.path"),
                    "<this JVM's class path>");
            out.println("  " + c.server() + " " + c.policyName() + ": " + shown);
        }
        try (ServerProcess server = ServerProcess.start(c.server(), command, port, log, STARTUP)) {
            List<Sample> samples = runner.run(c, round, "nats://127.0.0.1:" + port, server.pid(), cases);
            if (!server.isAlive()) {
                out.println("    " + c.server() + " exited during the round; log " + log + ":\n" + server.logTail(20));
            }
            return samples;
        } catch (IOException e) {
            out.println("  " + e.getMessage());
            List<Sample> failed = new ArrayList<>();
            for (JsCase jsCase : cases) {
                failed.add(Sample.failed(jsCase, c, round, c.server() + " did not start: "
                        + e.getMessage().lines().findFirst().orElse("")));
            }
            return failed;
        } finally {
            deleteTree(store);
        }
    }

    /**
     * Deletes a tree, files first.
     *
     * @param root a directory; nothing happens when it does not exist
     * @throws UncheckedIOException when something cannot be deleted
     */
    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root + ": " + e, e);
        }
    }
}
