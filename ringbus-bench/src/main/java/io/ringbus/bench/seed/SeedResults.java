package io.ringbus.bench.seed;

import io.ringbus.bench.JvmDescription;

import java.util.List;

/**
 * The seed scenario's results document ({@code bin/bench seed --json}, {@code bench-results/seed.json}),
 * written by {@link SeedReport#document()} and read by the chart. Immutable.
 *
 * @param scenario     always {@code seed}
 * @param jvm          where it ran
 * @param cores        the processors the JVM could use
 * @param waitStrategy the ring contenders' wait strategy
 * @param workload     the round's shape
 * @param warmupRounds unmeasured rounds per contender
 * @param rounds       measured rounds per contender
 * @param baseline     the contender the ratios divide by
 * @param contenders   one per contender, in run order
 */
public record SeedResults(String scenario, JvmDescription.Vm jvm, int cores, String waitStrategy, Workload workload,
                          int warmupRounds, int rounds, String baseline, List<Contender> contenders) {
    /** The value of {@code scenario}. */
    public static final String SCENARIO = "seed";

    /**
     * @param producers             publishing threads
     * @param eventsPerProducer     events each publishes per round
     * @param subjects              subjects the events spread over
     * @param subscribersPerSubject subscribers of each subject
     * @param dispatchesPerRound    deliveries a round makes
     */
    public record Workload(int producers, long eventsPerProducer, int subjects, int subscribersPerSubject,
                           long dispatchesPerRound) {
    }

    /**
     * @param name                       the contender's label
     * @param verified                   every round delivered everything (a failed round ends the run)
     * @param keepsProducerOrder         whether it promises per-producer order
     * @param outOfOrder                 deliveries seen out of per-producer order
     * @param medianMs                   median round time
     * @param minMs                      fastest round
     * @param maxMs                      slowest round
     * @param millionDispatchesPerSecond deliveries per second at the median round, in millions
     * @param ratioToBaseline            throughput over the baseline's, {@code null} when the baseline did not run
     * @param roundsMs                   every measured round, in run order
     */
    public record Contender(String name, boolean verified, boolean keepsProducerOrder, long outOfOrder, double medianMs,
                            double minMs, double maxMs, double millionDispatchesPerSecond, Double ratioToBaseline,
                            List<Double> roundsMs) {
    }
}
