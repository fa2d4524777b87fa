package io.ringbus.bench.seed;

import io.ringbus.core.WaitStrategy;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the seed scenario for several contenders in one JVM: for each, the warm-up rounds then the
 * measured rounds, each on a fresh contender, all with the same preallocated events. A failed
 * round stops the run with its exception.
 */
public final class SeedRunner {
    private final SeedWorkload workload;
    private final WaitStrategy waitStrategy;
    private final int warmupRounds;
    private final int rounds;
    private final Duration timeout;
    private final PrintStream progress;

    /**
     * @param workload     the round's shape
     * @param waitStrategy wait strategy for the ring-based contenders
     * @param warmupRounds unmeasured rounds per contender, &gt;= 0
     * @param rounds       measured rounds per contender, &gt;= 1
     * @param timeout      how long one round may take
     * @param progress     where to print one line per round
     * @throws IllegalArgumentException naming the round count that is out of range
     */
    public SeedRunner(SeedWorkload workload, WaitStrategy waitStrategy, int warmupRounds, int rounds, Duration timeout,
                      PrintStream progress) {
        if (warmupRounds < 0) {
            throw new IllegalArgumentException("warmup must be >= 0: warmup=" + warmupRounds);
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be >= 1: rounds=" + rounds);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: timeout=" + timeout);
        }
        this.workload = workload;
        this.waitStrategy = waitStrategy;
        this.warmupRounds = warmupRounds;
        this.rounds = rounds;
        this.timeout = timeout;
        this.progress = progress;
    }

    /**
     * Runs every contender in the given order.
     *
     * @param kinds the contenders
     * @return one result per contender, in the same order
     * @throws SeedVerificationException when a round fails its checks
     * @throws Exception                 when a contender fails to start or stop
     */
    public List<ContenderResult> run(List<ContenderKind> kinds) throws Exception {
        SeedPayloads payloads = new SeedPayloads(workload);
        SeedRound round = new SeedRound(payloads, waitStrategy, timeout);
        List<ContenderResult> results = new ArrayList<>();
        for (ContenderKind kind : kinds) {
            long[] nanos = new long[rounds];
            long outOfOrder = 0;
            boolean keepsOrder = true;
            for (int i = 0; i < warmupRounds + rounds; i++) {
                settle();
                Contender contender = kind.create();
                keepsOrder = contender.keepsProducerOrder();
                SeedRound.Outcome outcome = round.run(contender);
                boolean measured = i >= warmupRounds;
                if (measured) {
                    nanos[i - warmupRounds] = outcome.nanos();
                    outOfOrder += outcome.outOfOrder();
                }
                progress.printf(Locale.ROOT, "  %-22s %-8s %3d/%-3d %10.1f ms%s%n", kind.label(),
                        measured ? "round" : "warm-up", measured ? i - warmupRounds + 1 : i + 1,
                        measured ? rounds : warmupRounds, outcome.nanos() / 1e6,
                        outcome.outOfOrder() == 0 ? "" : "  (" + outcome.outOfOrder() + " out of order)");
            }
            results.add(new ContenderResult(kind, keepsOrder, nanos, outOfOrder, workload.dispatches()));
        }
        return results;
    }

    /** Lets the previous round's threads end and its garbage go, outside the timed section. */
    private static void settle() throws InterruptedException {
        System.gc();
        Thread.sleep(50);
    }
}
