package io.ringbus.bench.network;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.ringbus.bench.JvmDescription;

import java.util.List;
import java.util.Map;

/**
 * The network scenario's results document ({@code bin/bench network --json};
 * {@code bench-results/network.json}, {@code network-go.json}, {@code overload.json}), written by
 * {@link NetworkCommand} and read by the chart. Each part is {@code null} when it did not run.
 * Immutable.
 *
 * @param scenario     always {@code network}
 * @param jvm          where the runner ran
 * @param cores        the processors the runner's JVM could use
 * @param client       the client library: {@code jnats}, {@code nats.go}, or both
 * @param goComparison the Go client's comparison, or {@code null}
 * @param comparison   the jnats comparison, or {@code null}
 * @param overload     the overload runs, or {@code null}
 */
public record NetworkResults(String scenario, JvmDescription.Vm jvm, int cores, String client, Go goComparison,
                             Comparison comparison, Overload overload) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "network";

    /**
     * @param client     always {@code nats.go (natsload)}
     * @param warmupRuns unmeasured runs per case
     * @param runs       measured runs per case
     * @param baseline   the server the ratios divide by
     * @param notes      lines about the run, e.g. core counts skipped
     * @param results    one per placement, server and case, in run order
     */
    public record Go(String client, int warmupRuns, int runs, String baseline, List<String> notes,
                     List<GoRow> results) {
    }

    /**
     * @param server                    the server
     * @param cores                     the server's CPUs, 0 when not pinned
     * @param serverCpus                its {@code taskset} CPU list, or {@code null}
     * @param loadCpus                  natsload's CPU list, or {@code null}
     * @param sharedCpus                whether natsload shared the server's CPUs
     * @param id                        the case's id
     * @param caseLabel                 the case's label
     * @param latency                   whether the headline is p99 (lower is better) rather than deliveries/s
     * @param verified                  whether every run verified
     * @param failure                   what failed, or {@code null}
     * @param peakRssMiB                the server's peak RSS, NaN when unknown
     * @param medianPublishedPerSecond  median over the runs, NaN when not measured
     * @param medianDeliveriesPerSecond median over the runs, NaN when not measured
     * @param medianP50Micros           median over the runs, NaN when not measured
     * @param medianP99Micros           median over the runs, NaN when not measured
     * @param ratioToBaseline           headline over nats-server's, {@code null} when there is none
     * @param serverCpuMs               the server's user + system CPU time over the measured runs, NaN when unknown
     * @param serverCpuNanosPerMessage  that per delivery (per message published where nothing subscribes, per
     *                                  round trip or message sent in a latency case), NaN when unknown
     * @param cpuRatioToBaseline        that over nats-server's, {@code null} when there is none
     * @param runs                      natsload's result per measured run
     */
    public record GoRow(String server, int cores, String serverCpus, String loadCpus, boolean sharedCpus, String id,
                        @JsonProperty("case") String caseLabel, boolean latency, boolean verified, String failure,
                        double peakRssMiB, double medianPublishedPerSecond, double medianDeliveriesPerSecond,
                        double medianP50Micros, double medianP99Micros, Double ratioToBaseline, double serverCpuMs,
                        double serverCpuNanosPerMessage, Double cpuRatioToBaseline, List<NatsLoadResult> runs) {
    }

    /**
     * @param warmupRuns unmeasured runs per case and server
     * @param runs       measured runs per case and server
     * @param baseline   the server the ratios divide by
     * @param servers    one per server, in run order
     */
    public record Comparison(int warmupRuns, int runs, String baseline, List<ComparisonServer> servers) {
    }

    /**
     * @param name       the server
     * @param command    its command line
     * @param peakRssMiB its peak RSS, NaN when unknown
     * @param stats      the counters ringbus-server printed when stopped, by name (empty for nats-server)
     * @param cases      one per case, in run order
     */
    public record ComparisonServer(String name, String command, double peakRssMiB, Map<String, Long> stats,
                                   List<CaseRow> cases) {
    }

    /**
     * @param caseLabel                 the case's label
     * @param publishers                publishing connections
     * @param subscribers               subscribing connections
     * @param payloadBytes              payload size
     * @param messages                  messages published per run
     * @param deliveries                deliveries expected per run
     * @param verified                  whether every run delivered everything in order
     * @param failure                   what failed, or {@code null}
     * @param medianMs                  median run time
     * @param minMs                     fastest run
     * @param maxMs                     slowest run
     * @param medianPublishedPerSecond  median over the runs
     * @param medianDeliveriesPerSecond median over the runs
     * @param ratioToBaseline           deliveries/s over nats-server's, {@code null} when there is none
     * @param serverCpuMs               the server's user + system CPU time over the measured runs, NaN when unknown
     * @param serverCpuNanosPerDelivery that per delivery (per message published where nothing subscribes), NaN
     *                                  when unknown
     * @param cpuRatioToBaseline        that over nats-server's, {@code null} when there is none
     * @param runs                      each measured run
     */
    public record CaseRow(@JsonProperty("case") String caseLabel, int publishers, int subscribers, int payloadBytes,
                          long messages, long deliveries, boolean verified, String failure, double medianMs,
                          double minMs, double maxMs, double medianPublishedPerSecond,
                          double medianDeliveriesPerSecond, Double ratioToBaseline, double serverCpuMs,
                          double serverCpuNanosPerDelivery, Double cpuRatioToBaseline, List<Run> runs) {
    }

    /**
     * @param publishMs time to publish everything
     * @param deliverMs time until the last delivery
     */
    public record Run(double publishMs, double deliverMs) {
    }

    /**
     * @param maxPendingBytes max_pending of the slow-consumer variant's servers
     * @param slowFactor      slow consumers' rate = unloaded publish rate / this
     * @param slowConsumer    one per server
     * @param block           the BLOCK variant, or {@code null} when ringbus-server did not run
     */
    public record Overload(long maxPendingBytes, int slowFactor, List<SlowConsumerRow> slowConsumer, Block block) {
    }

    /**
     * One server's slow-consumer run; see {@link SlowConsumerResult} for the members.
     *
     * @param server                     the server
     * @param failure                    what failed, or {@code null}
     * @param messages                   messages published
     * @param unloadedPublishedPerSecond publish rate with no slow consumer
     * @param overloadPublishedPerSecond publish rate with the slow consumers
     * @param slowRate                   the slow consumers' rate
     * @param fastReceived               what the fast subscriber got
     * @param jnatsSlowHandled           what the slow jnats handler handled
     * @param jnatsSlowPending           jnats' backlog in the client
     * @param jnatsSlowDropped           what jnats dropped
     * @param jnatsSlowDisconnected      whether the slow jnats client was cut
     * @param socketSlowReceived         bytes the slow socket read
     * @param socketSlowDisconnected     whether the server cut the slow socket
     * @param socketSlowError            the slow socket's error, or {@code null}
     * @param serverSlowConsumers        the server's slow-consumer count
     * @param peakRssMiB                 the server's peak RSS
     */
    public record SlowConsumerRow(String server, String failure, long messages, double unloadedPublishedPerSecond,
                                  double overloadPublishedPerSecond, double slowRate, long fastReceived,
                                  long jnatsSlowHandled, long jnatsSlowPending, long jnatsSlowDropped,
                                  boolean jnatsSlowDisconnected, long socketSlowReceived,
                                  boolean socketSlowDisconnected, String socketSlowError, long serverSlowConsumers,
                                  double peakRssMiB) {
    }

    /**
     * The BLOCK variant; see {@link BlockResult} for the members.
     *
     * @param passed                     nothing lost, no OutOfMemoryError
     * @param messages                   messages published
     * @param publishers                 jnats publishers
     * @param heap                       the embedded server's {@code -Xmx}
     * @param ringSize                   its ring size
     * @param bufferSize                 the subscriber's buffer
     * @param received                   what the BLOCK subscriber got
     * @param verdict                    loss or disorder, or {@code null}
     * @param unloadedPublishedPerSecond publish rate with no slow consumer
     * @param overloadPublishedPerSecond publish rate against the slow subscriber
     * @param consumerRate               the subscriber's target rate
     * @param brokerDropped              events the broker dropped
     * @param peakHeapMiB                sum of the heap pools' peaks
     * @param peakRssMiB                 the child's peak RSS
     * @param exitCode                   the child's exit code
     * @param serverStats                the server's counters, by name
     */
    public record Block(boolean passed, long messages, int publishers, String heap, int ringSize, int bufferSize,
                        long received, String verdict, double unloadedPublishedPerSecond,
                        double overloadPublishedPerSecond, double consumerRate, long brokerDropped, double peakHeapMiB,
                        double peakRssMiB, int exitCode, Map<String, Long> serverStats) {
    }
}
