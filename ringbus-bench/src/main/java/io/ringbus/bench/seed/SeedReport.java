package io.ringbus.bench.seed;

import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.TextTable;
import io.ringbus.core.WaitStrategy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The seed scenario's results as a table and as JSON. The ratio column is each contender's
 * throughput divided by {@link ContenderKind#BASELINE}'s (1.00 = as fast; absent when the
 * baseline did not run).
 *
 * @param jvm          where it ran
 * @param workload     the round's shape
 * @param waitStrategy the ring contenders' wait strategy
 * @param warmupRounds unmeasured rounds per contender
 * @param rounds       measured rounds per contender
 * @param results      one per contender, in run order
 */
public record SeedReport(JvmDescription jvm, SeedWorkload workload, WaitStrategy waitStrategy, int warmupRounds,
                         int rounds, List<ContenderResult> results) {

    /** @return the header lines describing the run */
    public String header() {
        return jvm.headline() + "\n" + String.format(Locale.ROOT,
                "seed scenario: %d producers x %,d events over %d subjects x %d subscribers = %,d dispatches/round;"
                        + " wait strategy %s; %d warm-up + %d measured rounds per contender",
                workload.producers(), workload.eventsPerProducer(), workload.subjects(),
                workload.subscribersPerSubject(), workload.dispatches(), waitStrategy, warmupRounds, rounds);
    }

    /** @return the results table */
    public String table() {
        TextTable table = new TextTable("contender", "median ms", "min ms", "max ms", "M disp/s",
                "vs " + ContenderKind.BASELINE.label(), "per-producer order");
        for (ContenderResult r : results) {
            Double ratio = ratioToBaseline(r);
            table.row(r.kind().label(), fmt("%.1f", r.medianMillis()), fmt("%.1f", r.minMillis()),
                    fmt("%.1f", r.maxMillis()), fmt("%.2f", r.millionDispatchesPerSecond()),
                    ratio == null ? "-" : fmt("%.2f", ratio),
                    r.keepsProducerOrder() ? "kept" : "not promised, " + r.outOfOrder() + " out of order");
        }
        return table.render();
    }

    /** @return the same as {@link #table()} plus the run's description, as the results document */
    public SeedResults document() {
        SeedResults.Workload w = new SeedResults.Workload(workload.producers(), workload.eventsPerProducer(),
                workload.subjects(), workload.subscribersPerSubject(), workload.dispatches());
        List<SeedResults.Contender> contenders = new ArrayList<>();
        for (ContenderResult r : results) {
            List<Double> roundsMs = new ArrayList<>();
            for (long nanos : r.roundNanos()) {
                roundsMs.add(nanos / 1e6);
            }
            contenders.add(new SeedResults.Contender(r.kind().label(), true, r.keepsProducerOrder(), r.outOfOrder(),
                    r.medianMillis(), r.minMillis(), r.maxMillis(), r.millionDispatchesPerSecond(), ratioToBaseline(r),
                    roundsMs));
        }
        return new SeedResults(SeedResults.SCENARIO, jvm.vm(), jvm.cores(), waitStrategy.name(), w, warmupRounds, rounds,
                ContenderKind.BASELINE.label(), contenders);
    }

    private Double ratioToBaseline(ContenderResult r) {
        for (ContenderResult b : results) {
            if (b.kind() == ContenderKind.BASELINE) {
                return r.millionDispatchesPerSecond() / b.millionDispatchesPerSecond();
            }
        }
        return null;
    }

    private static String fmt(String format, double value) {
        return String.format(Locale.ROOT, format, value);
    }
}
