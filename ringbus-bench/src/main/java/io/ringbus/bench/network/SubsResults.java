package io.ringbus.bench.network;

import io.ringbus.bench.JvmDescription;

import java.util.List;

/**
 * The {@code subs} scenario's results document ({@code bin/bench subs --json},
 * {@code bench-results/subs.json}), written by {@link SubsReport#document} and read by the chart.
 * Immutable.
 *
 * @param scenario    always {@code subs}
 * @param jvm         where the runner ran
 * @param cores       the processors the runner's JVM could use
 * @param connections connections the subscriptions were spread over
 * @param baseline    the server the ratios divide by
 * @param servers     one per server, in run order
 */
public record SubsResults(String scenario, JvmDescription.Vm jvm, int cores, int connections, String baseline,
                          List<Server> servers) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "subs";

    /**
     * @param name       the server
     * @param command    its command line
     * @param peakRssMiB its peak RSS over the scenario, NaN when unknown
     * @param failure    why natsload failed to run, or {@code null}
     * @param steps      natsload's steps, one per subscription count (empty when it failed to run)
     * @param route      natsload's routing measurement, {@code null} when it failed to run
     */
    public record Server(String name, String command, double peakRssMiB, String failure,
                         List<NatsLoadResult.SubsStep> steps, NatsLoadResult.Route route) {
    }
}
