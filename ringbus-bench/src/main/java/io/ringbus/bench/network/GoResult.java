package io.ringbus.bench.network;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The measured natsload runs of one Go case on one server with one CPU placement, or why the case
 * failed.
 *
 * @param server     the server
 * @param plan       where server and load generator ran
 * @param c          the case
 * @param runs       natsload's JSON result per measured run, each verified
 * @param failure    {@code null}, or what failed (natsload's verdict, a timeout, a crash)
 * @param peakRssKiB the server's peak RSS (VmHWM) when its last case ended, -1 when unknown
 */
record GoResult(ServerKind server, CorePlan plan, GoCase c, List<Map<?, ?>> runs, String failure, long peakRssKiB) {
    /** Copies the runs. */
    GoResult {
        runs = List.copyOf(runs);
    }

    /** @return whether every run verified */
    boolean passed() {
        return failure == null && !runs.isEmpty();
    }

    /**
     * @param member a number in natsload's result, e.g. {@code deliveriesPerSecond} or {@code p99Micros}
     * @return its median over the runs, NaN when the case failed
     */
    double median(String member) {
        if (!passed()) {
            return Double.NaN;
        }
        double[] values = runs.stream().mapToDouble(r -> r.get(member) instanceof Double d ? d : Double.NaN).toArray();
        Arrays.sort(values);
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }

    /** @return the headline figure: median deliveries/s, or p99 in microseconds for a latency case */
    double headline() {
        return c.latency() ? median("p99Micros") : median("deliveriesPerSecond");
    }
}
