package io.ringbus.bench.seed;

import io.ringbus.bench.JsonWriter;
import io.ringbus.bench.JvmDescription;
import io.ringbus.bench.TextTable;
import io.ringbus.core.WaitStrategy;

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

    /** @return the same as {@link #table()} plus the run's description, as JSON */
    public String json() {
        JsonWriter json = new JsonWriter().beginObject();
        json.name("scenario").value("seed");
        jvm.writeMembers(json);
        json.name("waitStrategy").value(waitStrategy.name());
        json.name("workload").beginObject()
                .name("producers").value(workload.producers())
                .name("eventsPerProducer").value(workload.eventsPerProducer())
                .name("subjects").value(workload.subjects())
                .name("subscribersPerSubject").value(workload.subscribersPerSubject())
                .name("dispatchesPerRound").value(workload.dispatches())
                .endObject();
        json.name("warmupRounds").value(warmupRounds);
        json.name("rounds").value(rounds);
        json.name("baseline").value(ContenderKind.BASELINE.label());
        json.name("contenders").beginArray();
        for (ContenderResult r : results) {
            json.beginObject()
                    .name("name").value(r.kind().label())
                    .name("verified").value(true)
                    .name("keepsProducerOrder").value(r.keepsProducerOrder())
                    .name("outOfOrder").value(r.outOfOrder())
                    .name("medianMs").value(r.medianMillis())
                    .name("minMs").value(r.minMillis())
                    .name("maxMs").value(r.maxMillis())
                    .name("millionDispatchesPerSecond").value(r.millionDispatchesPerSecond());
            Double ratio = ratioToBaseline(r);
            json.name("ratioToBaseline");
            if (ratio == null) {
                json.nullValue();
            } else {
                json.value(ratio);
            }
            json.name("roundsMs").beginArray();
            for (long nanos : r.roundNanos()) {
                json.value(nanos / 1e6);
            }
            json.endArray().endObject();
        }
        return json.endArray().endObject().toJson();
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
