package io.ringbus.bench.network;

import io.ringbus.bench.JvmDescription;

import java.util.List;

/**
 * The soak's results document ({@code bin/bench soak --json}, {@code bench-results/soak.json}),
 * written by {@link SoakCommand} and read by the chart. Immutable.
 *
 * @param scenario        always {@code soak}
 * @param jvm             where the runner ran
 * @param cores           the processors the runner's JVM could use
 * @param durationSeconds how long the load ran
 * @param heap            ringbus-server's {@code -Xmx}
 * @param servers         one per server, in run order
 */
public record SoakResults(String scenario, JvmDescription.Vm jvm, int cores, long durationSeconds, String heap,
                          List<Server> servers) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "soak";

    /**
     * @param name           the server
     * @param command        its command line
     * @param passed         /healthz answered every time, the fast readers got everything, natsload saw no error
     * @param failure        why natsload failed to run, or {@code null}
     * @param healthyAnswers seconds whose {@code /healthz} answered 200
     * @param exitCode       the server's exit code after SIGTERM, -1 when it had to be killed
     * @param samples        one per second
     * @param load           natsload's account of the load, {@code null} when it failed to run
     */
    public record Server(String name, String command, boolean passed, String failure, long healthyAnswers,
                         int exitCode, List<Sample> samples, NatsLoadResult.Soak load) {
    }

    /**
     * @param atMillis  since sampling began
     * @param healthy   whether {@code /healthz} answered 200 within a second
     * @param heapBytes heap used, -1 when unknown
     * @param rssKiB    resident set size, -1 when unknown
     */
    public record Sample(long atMillis, boolean healthy, long heapBytes, long rssKiB) {
    }
}
