package io.ringbus.bench.jetstream;

import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.storage.StorageResults;

import java.util.List;

/**
 * The jetstream scenario's results document ({@code bin/bench jetstream --json},
 * {@code bench-results/jetstream.json}), written by {@link JetStreamCommand} and read by the chart.
 * A {@code double} that was not measured is NaN (JSON {@code null}). Immutable.
 *
 * @param scenario always {@code jetstream}
 * @param jvm      the JVM of the benchmark (ringbus-server runs on the same one)
 * @param cores    the processors, shared by both servers and the load generator
 * @param machine  the disk and the versions
 * @param settings the workload
 * @param fsync    the disk's own fsync rate, measured in the run
 * @param rows     one per case, server and policy, medians over the rounds
 */
public record JetStreamResults(String scenario, JvmDescription.Vm jvm, int cores, Machine machine, Settings settings,
                               StorageResults.Fsync fsync, List<Row> rows) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "jetstream";

    /**
     * @param kernel              {@code os.name} and {@code os.version}
     * @param directory           where the stores were written
     * @param fileStore           the file system under it
     * @param natsServer          {@code nats-server --version}
     * @param natsGo              the nats.go version jsbench was built with
     * @param ringbusServer       how ringbus-server was started (its jar, or the class path)
     * @param natsServerSync      how nats-server's file store forces its writes
     * @param clockTicksPerSecond the kernel's CPU time unit ({@code CLK_TCK})
     */
    public record Machine(String kernel, String directory, String fileStore, String natsServer, String natsGo,
                          String ringbusServer, String natsServerSync, long clockTicksPerSecond) {
    }

    /**
     * @param rounds          rounds, servers alternating within each
     * @param publishSeconds  publish and KV cases: measured time
     * @param warmupSeconds   publish and KV cases: unmeasured time before it
     * @param window          async publish: most PubAcks outstanding
     * @param replayMessages  read cases: messages in the stream read back
     * @param ackBatch        pull case: messages per fetch
     * @param kvKeys          KV cases: distinct keys
     * @param policies        ringbus-server's fsync policies compared
     * @param loadGenerator   what drove the servers
     */
    public record Settings(int rounds, double publishSeconds, double warmupSeconds, int window, long replayMessages,
                           int ackBatch, int kvKeys, List<String> policies, String loadGenerator) {
    }

    /**
     * One case on one server and policy.
     *
     * @param caseId              e.g. {@code async-128}
     * @param caseLabel           e.g. {@code async publish 128 B}
     * @param server              {@code nats-server} or {@code ringbus-server}
     * @param policy              ringbus-server's {@code --fsync}, or {@code default}
     * @param rounds              rounds that measured it
     * @param failedRounds        rounds in which it failed
     * @param perSecond           median rate of the rounds that measured it
     * @param runs                each of those rounds' rate
     * @param cpuMicrosPerMessage median server CPU time (user + system) per operation
     * @param ratioToNats         perSecond over nats-server's, ringbus rows only
     * @param cpuRatioToNats      cpuMicrosPerMessage over nats-server's, ringbus rows only
     * @param goal                issue 26's rate goal, {@code null} when none (CPU is judged in every ringbus row)
     * @param goalRatio           the rate over the goal's base
     * @param met                 {@code yes}, {@code no: rate}, {@code no: cpu}, {@code failed}, ...; {@code null}
     *                            for nats-server
     * @param stalls              async publishes nats.go retried as stalled, all rounds
     * @param failure             why a round failed, or {@code null}
     */
    public record Row(String caseId, String caseLabel, String server, String policy, int rounds, int failedRounds,
                      double perSecond, List<Double> runs, double cpuMicrosPerMessage, double ratioToNats,
                      double cpuRatioToNats, String goal, double goalRatio, String met, long stalls, String failure) {
    }
}
